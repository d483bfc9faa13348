// Downloads end to end through the route modules, on both storage backends: who gets bytes,
// ranges, signed free links, and the download records that drive never/outdated/current.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests, type Storage } from "~/integrations/storage.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as freeRoute from "~/routes/api.download.freedownload.$postId";
import * as signedRoute from "~/routes/download.$postId";
import * as postsRoute from "~/routes/api.library.posts";
import * as fileRoute from "~/routes/api.upload.file.$id";
import * as libraryRoute from "~/routes/library";
import type { LibraryPost } from "~/models/library-listing.server";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { appDatabaseSettled, callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { startS3rver } from "./storage-s3rver";

const localRoot = mkdtempSync(path.join(os.tmpdir(), "clib-dl-"));
let s3: Awaited<ReturnType<typeof startS3rver>>;

beforeAll(async () => {
  await createTiers();
  s3 = await startS3rver();
});

afterAll(async () => {
  setStorageForTests(undefined);
  await s3?.stop();
  rmSync(localRoot, { recursive: true, force: true });
});

async function bodyBytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

/** The signed download route, called with the address the free endpoint handed out. */
async function followSignedUrl(downloadUrl: string, headers: Record<string, string> = {}) {
  const url = new URL(downloadUrl);
  const postId = url.pathname.split("/").pop()!;
  return callRoute(signedRoute, { path: `${url.pathname}${url.search}`, params: { postId }, headers });
}

/**
 * The download records of (user, post) once the app's database work has settled: a record is
 * committed before a body's last chunk goes out, and settling first also makes absence exact
 * (a write that was about to start would have started).
 */
async function settledDownloadCount(userId: string, postId: string): Promise<number> {
  await appDatabaseSettled();
  return db.download.count({ where: { userId, postId } });
}

async function statusOf(cookie: string, postId: string) {
  const response = await callRoute(postsRoute, { path: "/api/library/posts", cookie });
  return (await readJsonBody<{ posts: LibraryPost[] }>(response)).posts.find((post) => post.postId === postId);
}

const backends: [string, () => Storage][] = [
  ["local folder", () => new LocalStorage(localRoot)],
  ["S3 (s3rver)", () => s3.storage],
];

describe.each(backends)("downloads from %s", (_name, make) => {
  beforeAll(() => setStorageForTests(make()));

  it("a guest downloads a free post through a signed address, with the file's headers", async () => {
    const post = await createPost({ paid: false, fileSize: 70_000 });
    const response = await callRoute(freeRoute, { params: { postId: post.id } });
    expect(response.status).toBe(200);
    const { downloadUrl } = await readJsonBody<{ downloadUrl: string }>(response);
    expect(downloadUrl).toMatch(new RegExp(`^http://localhost:3999/download/${post.id}\\?expires=\\d+&sig=`));
    const file = await followSignedUrl(downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Length")).toBe("70000");
    expect(file.headers.get("Content-Disposition")).toContain(`filename="${post.title.toLowerCase().replace(" ", "-")}-v1.0.package"`);
    expect(file.headers.get("ETag")).toMatch(/^".+"$/);
    expect(file.headers.get("Accept-Ranges")).toBe("bytes");
    expect((await bodyBytes(file)).equals(post.bytes)).toBe(true);
  });

  it("a guest never gets bytes or an address of a paid post", async () => {
    const post = await createPost({ tiers: [TIER_2] });
    const direct = await callRoute(paidRoute, { params: { postId: post.id } });
    expect(direct.status).toBe(403);
    expect(direct.headers.get("Content-Type")).toContain("application/json");
    expect(await readJsonBody(direct)).toEqual({ error: "You do not have access to this post." });
    const free = await callRoute(freeRoute, { params: { postId: post.id } });
    expect(free.status).toBe(403);
    expect(await readJsonBody(free)).not.toHaveProperty("downloadUrl");
  });

  it("answers 404 JSON for unknown posts, ids of the wrong shape and disabled posts", async () => {
    const disabled = await createPost({ paid: false, enabled: false });
    for (const postId of ["123456789", "..%2Fetc", "a b", disabled.id]) {
      for (const route of [paidRoute, freeRoute]) {
        const response = await callRoute(route, { params: { postId } });
        expect(response.status).toBe(404);
        expect(await readJsonBody(response)).toHaveProperty("error");
      }
    }
  });

  it("refuses tampered, other-post and expired signed addresses", async () => {
    const post = await createPost({ paid: false });
    const other = await createPost({ paid: false });
    const { downloadUrl } = await readJsonBody<{ downloadUrl: string }>(await callRoute(freeRoute, { params: { postId: post.id } }));
    const url = new URL(downloadUrl);
    const tampered = new URL(downloadUrl);
    tampered.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 1000));
    expect((await followSignedUrl(tampered.toString())).status).toBe(403);
    const otherPost = new URL(downloadUrl.replace(`/download/${post.id}`, `/download/${other.id}`));
    expect((await followSignedUrl(otherPost.toString())).status).toBe(403);
    const withUser = new URL(downloadUrl);
    withUser.searchParams.set("u", "someone-else");
    expect((await followSignedUrl(withUser.toString())).status).toBe(403);
    const expired = new URL(downloadUrl);
    expired.searchParams.set("expires", String(Date.now() - 1000));
    expect((await followSignedUrl(expired.toString())).status).toBe(403);
  });

  it("an entitled user accepts the terms, downloads a paid post, and it is recorded: never -> current -> outdated", async () => {
    const post = await createPost({ tiers: [TIER_2], version: "V1.0", fileSize: 50_000 });
    const user = await createTestUser({ currentTierId: TIER_2 });
    const cookie = await sessionCookie(user.id);
    expect((await statusOf(cookie, post.id))?.downloadStatus).toBe("never");

    const beforeTerms = await callRoute(paidRoute, { params: { postId: post.id }, cookie });
    expect(beforeTerms.status).toBe(403);
    expect(await readJsonBody(beforeTerms)).toEqual({ error: "Please accept the terms of service before downloading." });
    await db.user.update({ where: { id: user.id }, data: { tosAccepted: true } });

    const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie });
    expect(response.status).toBe(200);
    expect((await bodyBytes(response)).equals(post.bytes)).toBe(true);
    expect(await settledDownloadCount(user.id, post.id)).toBe(1);
    const record = await db.download.findFirstOrThrow({ where: { userId: user.id, postId: post.id } });
    expect(record.version).toBe("V1.0");
    expect(await statusOf(cookie, post.id)).toMatchObject({ downloadStatus: "current", userVersion: "V1.0" });

    await db.post.update({ where: { id: post.id }, data: { version: "V1.1" } });
    expect(await statusOf(cookie, post.id)).toMatchObject({ downloadStatus: "outdated", userVersion: "V1.0" });
    // Comparing ignores a leading V.
    await db.post.update({ where: { id: post.id }, data: { version: "1.0" } });
    expect((await statusOf(cookie, post.id))?.downloadStatus).toBe("current");
  });

  // The last chunk waits for the download record to commit: the library's "Download all updates"
  // revalidates as soon as it has the body, and a record not yet committed would still show the
  // post as an update.
  it("the record is committed by the time the client has the whole body", async () => {
    const post = await createPost({ tiers: [TIER_2], version: "V3.0", fileSize: 300_000 });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    for (const range of [undefined, "bytes=100000-"]) {
      await db.download.deleteMany({ where: { userId: user.id } });
      // A resumed download: its first part was sent before (and counted nothing on its own).
      if (range) await bodyBytes(await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=0-99999" } }));
      const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: range ? { Range: range } : {} });
      const bytes = await bodyBytes(response);
      // No settling: the count is read the moment the body is complete.
      const recorded = await db.download.findMany({ where: { userId: user.id, postId: post.id }, select: { version: true } });
      expect(recorded).toEqual([{ version: "V3.0" }]);
      expect(bytes.equals(range ? post.bytes.subarray(100_000) : post.bytes)).toBe(true);
    }
  });

  it("a user without the tier gets 403 and no bytes, even with the terms accepted", async () => {
    const post = await createPost({ tiers: [TIER_2] });
    const user = await createTestUser({ tosAccepted: true });
    const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) });
    expect(response.status).toBe(403);
    expect(response.headers.get("Content-Disposition")).toBeNull();
    expect(await readJsonBody(response)).toEqual({ error: "You do not have access to this post." });
  });

  it("ranges resume a download byte-exactly (206), and only the final range records it", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: 100_000 });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    const first = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=0-39999" } });
    expect(first.status).toBe(206);
    expect(first.headers.get("Content-Range")).toBe("bytes 0-39999/100000");
    expect(first.headers.get("Content-Length")).toBe("40000");
    const head = await bodyBytes(first);
    expect(await settledDownloadCount(user.id, post.id)).toBe(0);

    const etag = first.headers.get("ETag")!;
    const rest = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=40000-", "If-Range": etag } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get("Content-Range")).toBe("bytes 40000-99999/100000");
    const tail = await bodyBytes(rest);
    expect(Buffer.concat([head, tail]).equals(post.bytes)).toBe(true);
    expect(await settledDownloadCount(user.id, post.id)).toBe(1);

    const suffix = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=-10" } });
    expect((await bodyBytes(suffix)).equals(post.bytes.subarray(99_990))).toBe(true);
    const outside = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=200000-" } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get("Content-Range")).toBe("bytes */100000");
  });

  // Range headers are read by range-parser; what it parses decides 206, 200 or 416.
  it("range edge cases: combined and disjoint multi-ranges, suffixes, unsatisfiable and malformed ranges", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: 5000 });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    const get = (range: string) => callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: range } });

    // Overlapping and adjacent ranges are one range: a single 206 part.
    const combined = await get("bytes=0-9,10-19,5-14");
    expect(combined.status).toBe(206);
    expect(combined.headers.get("Content-Range")).toBe("bytes 0-19/5000");
    expect((await bodyBytes(combined)).equals(post.bytes.subarray(0, 20))).toBe(true);
    // Disjoint ranges would need a multipart body: the whole file is sent instead (RFC 9110 allows it).
    const disjoint = await get("bytes=0-9,100-109");
    expect(disjoint.status).toBe(200);
    expect(disjoint.headers.get("Content-Range")).toBeNull();
    expect((await bodyBytes(disjoint)).equals(post.bytes)).toBe(true);
    // An unsatisfiable part next to a satisfiable one is dropped.
    const partly = await get("bytes=4990-,9000-9999");
    expect(partly.status).toBe(206);
    expect(partly.headers.get("Content-Range")).toBe("bytes 4990-4999/5000");
    // Suffix ranges: the last N bytes; an end past the file is cut at its last byte.
    const suffix = await get("bytes=-1");
    expect(suffix.headers.get("Content-Range")).toBe("bytes 4999-4999/5000");
    expect((await bodyBytes(suffix)).equals(post.bytes.subarray(4999))).toBe(true);
    const pastEnd = await get("bytes=4000-99999");
    expect(pastEnd.headers.get("Content-Range")).toBe("bytes 4000-4999/5000");
    expect((await bodyBytes(pastEnd)).length).toBe(1000);
    // Nothing satisfiable: 416 with the file's size.
    for (const range of ["bytes=5000-", "bytes=-0", "bytes=9000-9999,7000-"]) {
      const refused = await get(range);
      expect(refused.status, range).toBe(416);
      expect(refused.headers.get("Content-Range")).toBe("bytes */5000");
    }
    // Malformed ranges and other units are ignored: the whole file.
    for (const range of ["bytes=abc", "bytes=5-x", "items=0-9", "bytes"]) {
      const whole = await get(range);
      expect(whole.status, range).toBe(200);
      expect((await bodyBytes(whole)).length).toBe(5000);
    }
  });

  // `Range: bytes=-1` sends the file's last byte only: no download, however often it is asked;
  // once the rest was sent too, a (user, post, version) is recorded once per window.
  it("tail ranges alone record nothing; one download per version within the window", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: 5000, version: "V2.0" });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    for (let request = 0; request < 5; request++) {
      const tail = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=-1" } });
      expect(tail.status).toBe(206);
      expect((await bodyBytes(tail)).length).toBe(1);
    }
    expect(await settledDownloadCount(user.id, post.id)).toBe(0);
    // The rest of the file completes it; whole files again record nothing more within the window.
    await bodyBytes(await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=0-4998" } }));
    expect(await settledDownloadCount(user.id, post.id)).toBe(1);
    await bodyBytes(await callRoute(paidRoute, { params: { postId: post.id }, cookie }));
    expect(await settledDownloadCount(user.id, post.id)).toBe(1);
    // A new version is a new download.
    await db.post.update({ where: { id: post.id }, data: { version: "V2.1" } });
    await bodyBytes(await callRoute(paidRoute, { params: { postId: post.id }, cookie }));
    expect(await settledDownloadCount(user.id, post.id)).toBe(2);
    expect((await db.download.findMany({ where: { userId: user.id, postId: post.id }, orderBy: { createdAt: "asc" } })).map((row) => row.version)).toEqual([
      "V2.0",
      "V2.1",
    ]);
  });

  // A signed address works for anyone for 10 minutes, so an entitled supporter must not be able
  // to turn a paid post into one.
  it("paid posts get no signed address, even for entitled users, and old addresses stop working", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: 3000 });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    const free = await callRoute(freeRoute, { params: { postId: post.id }, cookie });
    expect(free.status).toBe(403);
    expect(await readJsonBody(free)).toEqual({ error: "This post is not free. Please use its Download button." });
    // The session-checked endpoint still serves them.
    expect((await callRoute(paidRoute, { params: { postId: post.id }, cookie })).status).toBe(200);
    // A signed address made for a paid post (or a post made paid later) is refused.
    const { signedDownloadUrl } = await import("~/models/download.server");
    const leaked = await followSignedUrl(signedDownloadUrl(post.id, user.id));
    expect(leaked.status).toBe(403);
    expect(leaked.headers.get("Content-Disposition")).toBeNull();
  });

  it("a logged-in user's free download through the signed address is recorded for them", async () => {
    const post = await createPost({ paid: false, fileSize: 2000 });
    const user = await createTestUser({ tosAccepted: true });
    const { downloadUrl } = await readJsonBody<{ downloadUrl: string }>(
      await callRoute(freeRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) }),
    );
    const file = await followSignedUrl(downloadUrl);
    expect((await bodyBytes(file)).length).toBe(2000);
    expect(await settledDownloadCount(user.id, post.id)).toBe(1);
  });

  it("an admin's file upload streams into this backend and downloads back byte for byte", async () => {
    const post = await createPost({ paid: false, fileSize: null });
    const admin = await createTestUser({ isAdmin: true, tosAccepted: true });
    const bytes = Buffer.alloc(6 * 1024 * 1024 + 5);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 7) & 0xff;
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)]), "../../evil name.zip");
    const upload = await callRoute(fileRoute, { method: "POST", params: { id: post.id }, cookie: await sessionCookie(admin.id), form });
    expect(upload.status).toBe(200);
    // The name is reduced to a safe file name under the post's own folder.
    expect((await readJsonBody<{ post: LibraryPost }>(upload)).post.drive_file_id).toBe(`posts/${post.id}/evil-name.zip`);
    const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(admin.id) });
    // Saved under the post's title and version, whatever the upload was called.
    expect(response.headers.get("Content-Disposition")).toContain(`filename="${post.title.toLowerCase().replace(" ", "-")}-v1.0.zip"`);
    expect((await bodyBytes(response)).equals(bytes)).toBe(true);
  });

  it("an aborted download is not recorded", async () => {
    const post = await createPost({ paid: false, fileSize: 3_000_000 });
    const user = await createTestUser({ tosAccepted: true });
    const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await settledDownloadCount(user.id, post.id)).toBe(0);
  });
});

// Downloads follow isEffectiveAdmin like every other check: a restricted admin reaches no
// disabled post and cannot skip the terms.
describe("a restricted admin downloads as a user", () => {
  beforeAll(() => setStorageForTests(new LocalStorage(localRoot)));

  it("gets 404 for a disabled post and cannot skip the terms", async () => {
    const restricted = await createTestUser({ isAdmin: true, canBeAdmin: true, restricted: true, tosAccepted: false });
    const cookie = await sessionCookie(restricted.id);
    const disabled = await createPost({ paid: false, enabled: false });
    for (const route of [paidRoute, freeRoute]) {
      const hidden = await callRoute(route, { params: { postId: disabled.id }, cookie });
      expect(hidden.status).toBe(404);
      expect(await readJsonBody(hidden)).toEqual({ error: "Post not found." });
    }
    // A restricted account unlocks nothing, so the API refuses before the terms even come up...
    const free = await createPost({ paid: false });
    for (const route of [paidRoute, freeRoute]) {
      const refused = await callRoute(route, { params: { postId: free.id }, cookie });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("Content-Disposition")).toBeNull();
    }
    // ...and the library page asks for the terms instead of skipping them as it does for admins.
    const asked = await callRoute(libraryRoute, { method: "POST", path: "/library", form: { intent: "download", postId: free.id, back: "/library" }, cookie });
    expect(asked.headers.get("Location")).toBe(`/library?terms=${free.id}`);
    const page = await readJsonBody<{ user: { tosAccepted: boolean } }>(await callRoute(libraryRoute, { path: "/library", cookie }));
    expect(page.user.tosAccepted).toBe(false);
    // The same admin unrestricted: disabled posts and no terms popup.
    await db.user.update({ where: { id: restricted.id }, data: { restricted: false } });
    expect((await callRoute(paidRoute, { params: { postId: disabled.id }, cookie })).status).toBe(200);
    expect((await callRoute(paidRoute, { params: { postId: free.id }, cookie })).status).toBe(200);
  });
});
