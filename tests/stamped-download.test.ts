// Paid ZIP downloads carry the downloader's leak-trace number in the archive
// comment, written on the fly through the download route; free signed downloads do not. Checked
// with unzip and Python's zipfile on the bytes the route sent, on both storage backends.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests, storage, type Storage } from "~/integrations/storage.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as freeRoute from "~/routes/api.download.freedownload.$postId";
import * as signedRoute from "~/routes/download.$postId";
import { contentHashFeed } from "~/utils/content-hash";
import { traceNumberOf } from "~/utils/zip-eocd";
import { appDatabaseSettled, callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { startS3rver } from "./storage-s3rver";
import { archiveComment, testArchive, writeZip } from "./zip-files";

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-stamp-"));
let s3: Awaited<ReturnType<typeof startS3rver>>;

beforeAll(async () => {
  await createTiers();
  s3 = await startS3rver();
});

afterAll(async () => {
  // Download records are written once a body ends, unawaited: let them commit before teardown.
  await appDatabaseSettled();
  setStorageForTests(undefined);
  await s3?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A real ZIP (Python's zipfile, deflated, with the creator's own comment) of about `kib` KiB of mixed entries. */
function modZip(name: string, kib: number): Buffer {
  const file = path.join(folder, name);
  writeZip(
    file,
    [
      { name: "mod/readme.txt", text: "A mod for testing.\n" },
      { name: "mod/mesh.obj", text: "v 0.125 1.5 -2\nf 1 2 3\n", repeat: kib * 40 },
      { name: "mod/textures/skin.dds", text: "DDS|0123456789abcdef", repeat: kib * 30 },
    ],
    { deflate: true, comment: "Packed by the creator" },
  );
  return readFileSync(file);
}

/** A post whose stored file is `bytes`, named `fileName`. */
async function postWithFile(bytes: Buffer, options: { paid: boolean; fileName?: string }) {
  const post = await createPost({ paid: options.paid, tiers: options.paid ? [TIER_2] : [], fileSize: null });
  const fileName = options.fileName ?? `mod-${post.id}.zip`;
  const key = `posts/${post.id}/${fileName}`;
  await (await storage()).put(key, bytes);
  await db.post.update({ where: { id: post.id }, data: { driveFileId: key, fileName, fileSize: BigInt(bytes.length) } });
  return { ...post, key };
}

async function bodyBytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

function contentHash(bytes: Buffer, chunk = 100_003): string {
  const hash = createHash("sha256");
  const feed = contentHashFeed((part) => hash.update(part));
  for (let at = 0; at < bytes.length; at += chunk) feed.push(bytes.subarray(at, at + chunk));
  feed.finish();
  return hash.digest("hex");
}

function checkArchive(bytes: Buffer, name: string): { tested: string; comment: string } {
  const file = path.join(folder, name);
  writeFileSync(file, bytes);
  return { tested: testArchive(file), comment: archiveComment(file) };
}

const backends: [string, () => Storage][] = [
  ["local folder", () => new LocalStorage(path.join(folder, "store"))],
  ["S3 (s3rver)", () => s3.storage],
];

describe.each(backends)("stamped downloads from %s", (name, make) => {
  const tag = name.startsWith("S3") ? "s3" : "local";
  beforeAll(() => setStorageForTests(make()));

  it("a supporter's paid ZIP unpacks in unzip and Python, names their number, and keeps the content hash", async () => {
    const stored = modZip(`paid-${tag}.zip`, 300);
    const post = await postWithFile(stored, { paid: true });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) });
    expect(response.status).toBe(200);
    const stamped = await bodyBytes(response);
    expect(response.headers.get("Content-Length")).toBe(String(stamped.length));
    expect(stamped.equals(stored)).toBe(false);

    const { tested, comment } = checkArchive(stamped, `stamped-${tag}.zip`);
    expect(tested).toMatch(/No errors detected/);
    // The number and its tag (tests/leak-trace.test.ts checks the tag).
    expect(comment).toMatch(new RegExp(`^Leak trace ${user.number}-[0-9a-f]{16}$`));
    expect(traceNumberOf(stamped.subarray(-2000), stamped.length)).toBe(user.number);
    // The stored prefix is sent unchanged; only the end record differs.
    const prefix = stored.length - 22 - "Packed by the creator".length;
    expect(stamped.subarray(0, prefix).equals(stored.subarray(0, prefix))).toBe(true);
    expect(contentHash(stamped)).toBe(contentHash(stored));
    expect(contentHash(stamped, 4096)).toBe(contentHash(stored, 65_536));

    // Another supporter's copy carries their own number, with another ETag.
    const other = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const theirs = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(other.id) });
    const theirBytes = await bodyBytes(theirs);
    expect(traceNumberOf(theirBytes.subarray(-2000), theirBytes.length)).toBe(other.number);
    expect(theirs.headers.get("ETag")).not.toBe(response.headers.get("ETag"));
    await appDatabaseSettled();
    expect(await db.download.count({ where: { postId: post.id } })).toBe(2);
  });

  it("ranges spread over the stamped copy reassemble to exactly its bytes, with exact lengths, and resume by its ETag", async () => {
    const stored = modZip(`ranges-${tag}.zip`, 200);
    const post = await postWithFile(stored, { paid: true });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    const whole = await callRoute(paidRoute, { params: { postId: post.id }, cookie });
    const full = await bodyBytes(whole);
    const size = full.length;
    const etag = whole.headers.get("ETag")!;
    const head = await callRoute(paidRoute, { method: "HEAD", params: { postId: post.id }, cookie });
    expect(head.headers.get("Content-Length")).toBe(String(size));
    expect(head.headers.get("ETag")).toBe(etag);

    // Cuts everywhere, including around the seam between the stored prefix and the new end record.
    // (No one-byte range at offset 0: s3rver reads "bytes=0-0" as the whole object, which S3 does not.)
    const seam = stored.length - 22 - "Packed by the creator".length;
    const cuts = [...new Set([0, 2, 4096, 65_535, 65_536, Math.floor(size / 3), seam - 7, seam - 1, seam, seam + 1, seam + 21, size - 3, size])].sort(
      (a, b) => a - b,
    );
    const parts: Buffer[] = [];
    for (let index = 0; index < cuts.length - 1; index++) {
      const start = cuts[index]!;
      const end = cuts[index + 1]! - 1;
      const part = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: `bytes=${start}-${end}`, "If-Range": etag } });
      expect(part.status).toBe(206);
      expect(part.headers.get("Content-Range")).toBe(`bytes ${start}-${end}/${size}`);
      expect(part.headers.get("Content-Length")).toBe(String(end - start + 1));
      const bytes = await bodyBytes(part);
      expect(bytes.length).toBe(end - start + 1);
      parts.push(bytes);
    }
    expect(Buffer.concat(parts).equals(full)).toBe(true);

    // A suffix range is the stamped copy's end: the comment.
    const suffix = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=-40" } });
    expect((await bodyBytes(suffix)).equals(full.subarray(size - 40))).toBe(true);
    // If-Range with the stored file's ETag (or another copy's) no longer matches: the whole copy again.
    const storedEtag = (await (await storage()).stat(post.key))!.etag;
    const stale = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: "bytes=100-", "If-Range": storedEtag } });
    expect(stale.status).toBe(200);
    expect((await bodyBytes(stale)).equals(full)).toBe(true);
    const beyond = await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { Range: `bytes=${size}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("Content-Range")).toBe(`bytes */${size}`);
    // The copy's own ETag answers 304.
    expect((await callRoute(paidRoute, { params: { postId: post.id }, cookie, headers: { "If-None-Match": etag } })).status).toBe(304);
    await appDatabaseSettled();
  });

  it("a free download through the signed address is the stored file, byte for byte", async () => {
    const stored = modZip(`free-${tag}.zip`, 50);
    const post = await postWithFile(stored, { paid: false });
    const user = await createTestUser({ tosAccepted: true });
    const { downloadUrl } = await readJsonBody<{ downloadUrl: string }>(
      await callRoute(freeRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) }),
    );
    const url = new URL(downloadUrl);
    const file = await callRoute(signedRoute, { path: `${url.pathname}${url.search}`, params: { postId: post.id } });
    expect(file.status).toBe(200);
    const bytes = await bodyBytes(file);
    expect(bytes.equals(stored)).toBe(true);
    expect(file.headers.get("Content-Length")).toBe(String(stored.length));
    expect(file.headers.get("ETag")).toBe((await (await storage()).stat(post.key))!.etag);
    expect(checkArchive(bytes, `free-${tag}.zip`).comment).toBe("Packed by the creator");
    await appDatabaseSettled();
  });

  it("a file that cannot be stamped is served as stored", async () => {
    const junk = Buffer.concat([modZip(`trailing-${tag}.zip`, 20), Buffer.from("bytes after the end record")]);
    const trailing = await postWithFile(junk, { paid: true });
    const notZip = await postWithFile(Buffer.alloc(70_000, 7), { paid: true, fileName: "model.blend" });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);
    for (const [post, bytes] of [
      [trailing, junk],
      [notZip, Buffer.alloc(70_000, 7)],
    ] as const) {
      const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie });
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Length")).toBe(String(bytes.length));
      expect((await bodyBytes(response)).equals(bytes)).toBe(true);
    }
    await appDatabaseSettled();
  });
});
