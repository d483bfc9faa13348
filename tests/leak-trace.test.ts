// The admin drops a leaked ZIP on the code search and gets the leak-trace
// number from its comment, with that user and their downloads. The upload streams through the
// /admin action (with or without JavaScript it is the same multipart post); only its end is
// kept, nothing reaches storage.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests, storage } from "~/integrations/storage.server";
import * as adminRoute from "~/routes/admin";
import * as paidRoute from "~/routes/api.download.$postId";
import * as searchApiRoute from "~/routes/api.admin.search-by-code";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";
import { streamTail } from "~/utils/stream-tail.server";
import { traceTag, verifyTraceTag } from "~/utils/trace-stamp.server";
import { eocdWithComment, findEocd, MAX_TAIL_BYTES } from "~/utils/zip-eocd";
import { setEnv } from "./env";
import { answerAsResponse, appDatabaseSettled, callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { writeZip } from "./zip-files";

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-leak-"));
const storeRoot = path.join(folder, "store");
let adminCookie: string;

beforeAll(async () => {
  await createTiers();
  setStorageForTests(new LocalStorage(storeRoot));
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

afterAll(async () => {
  await appDatabaseSettled();
  setStorageForTests(undefined);
  rmSync(folder, { recursive: true, force: true });
});

/** Every file under the storage folder. */
function storedFiles(): string[] {
  return readdirSync(storeRoot, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** A paid post with a real ZIP, downloaded (stamped) by a new supporter named `name`. */
async function leakedCopy(name: string, title: string) {
  const slug = name.toLowerCase().replace(/\W+/g, "-");
  const zipPath = path.join(folder, `${slug}.zip`);
  writeZip(
    zipPath,
    [
      { name: "mod/readme.txt", text: `${title}\n` },
      { name: "mod/data.bin", text: "0123456789", repeat: 3000 },
    ],
    { deflate: true },
  );
  const stored = readFileSync(zipPath);
  const post = await createPost({ tiers: [TIER_2], title, fileSize: null });
  const key = `posts/${post.id}/${slug}.zip`;
  await (await storage()).put(key, stored);
  await db.post.update({ where: { id: post.id }, data: { driveFileId: key, fileName: `${slug}.zip`, fileSize: BigInt(stored.length) } });
  const leaker = await createTestUser({ currentTierId: TIER_2, tosAccepted: true, fullName: name });
  const response = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(leaker.id) });
  const stamped = Buffer.from(await response.arrayBuffer());
  await appDatabaseSettled();
  return { post, leaker, stored, stamped };
}

function zipForm(bytes: Uint8Array, fileName = "leaked.zip"): FormData {
  const form = new FormData();
  form.append("file", new File([new Uint8Array(bytes)], fileName, { type: "application/zip" }));
  return form;
}

const tracePath = "/admin?intent=trace-zip";

describe("leaked ZIP lookup in the code search", () => {
  it("reads the number from a stamped download and answers its user and all their downloads", async () => {
    const { post, leaker, stamped } = await leakedCopy("Leaky Larry", "Pirate Ship");
    const before = storedFiles();
    const response = await callRoute(adminRoute, { method: "POST", path: tracePath, form: zipForm(stamped, "ship (1).zip"), cookie: adminCookie });
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toEqual({
      intent: "trace-zip",
      traced: { fileName: "ship (1).zip", number: leaker.number, stamp: "verified" },
      result: {
        number: leaker.number,
        stamp: "verified",
        // The page shows the account (email, a link to its editor) and each download's version.
        user: { id: leaker.id, email: leaker.email, username: "Leaky Larry" },
        downloads: [expect.objectContaining({ postId: post.id, postTitle: "Pirate Ship", username: "Leaky Larry", version: expect.any(String) })],
      },
    });
    // The same answer as searching by that number (no keyword: every download).
    const bySearch = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { intent: "search-by-code", code: String(leaker.number), keyword: "pirate" },
      cookie: adminCookie,
    });
    expect((await readJsonBody<{ result: unknown }>(bySearch)).result).toEqual({
      number: leaker.number,
      stamp: "untagged",
      user: expect.objectContaining({ id: leaker.id }),
      downloads: [expect.objectContaining({ postId: post.id })],
    });
    expect(storedFiles()).toEqual(before);
  });

  it("a file without a trace comment gets a clear message; a missing file is asked for", async () => {
    const { stored } = await leakedCopy("Careful Carla", "Castle");
    const plain = await callRoute(adminRoute, { method: "POST", path: tracePath, form: zipForm(stored, "castle.zip"), cookie: adminCookie });
    expect(plain.status).toBe(422);
    expect(await readJsonBody(plain)).toEqual({
      intent: "trace-zip",
      error: "This file carries no leak-trace number: it is not a ZIP from a paid download, or its comment was removed or changed.",
    });
    const notZip = await callRoute(adminRoute, {
      method: "POST",
      path: tracePath,
      form: zipForm(new Uint8Array(5000).fill(80), "notes.txt"),
      cookie: adminCookie,
    });
    expect(notZip.status).toBe(422);
    const empty = new FormData();
    empty.append("other", "x");
    const none = await callRoute(adminRoute, { method: "POST", path: tracePath, form: empty, cookie: adminCookie });
    expect(none.status).toBe(400);
    expect(await readJsonBody(none)).toEqual({ intent: "trace-zip", error: "Please choose the leaked ZIP file." });
  });

  it("a number whose user is gone is named, with User not found.", async () => {
    const { leaker, stamped } = await leakedCopy("Gone Gary", "Tower");
    await db.user.delete({ where: { id: leaker.id } });
    const response = await callRoute(adminRoute, { method: "POST", path: tracePath, form: zipForm(stamped), cookie: adminCookie });
    expect(response.status).toBe(404);
    expect(await readJsonBody(response)).toEqual({
      intent: "trace-zip",
      error: "User not found.",
      traced: { fileName: "leaked.zip", number: leaker.number, stamp: "verified" },
    });
  });

  it("is for admins only: others are sent away before the file is read", async () => {
    const { stamped } = await leakedCopy("Nosy Nora", "Bridge");
    for (const cookie of [undefined, await sessionCookie((await createTestUser({ tosAccepted: true })).id)]) {
      const refused = await callRoute(adminRoute, { method: "POST", path: tracePath, form: zipForm(stamped), cookie });
      expect(refused.status).toBe(302);
      expect(refused.headers.get("Location")).toBe("/");
      expect(await refused.text()).not.toContain("trace");
    }
    const restrictedAdmin = await createTestUser({ isAdmin: true, canBeAdmin: true, restricted: true });
    const restricted = await callRoute(adminRoute, {
      method: "POST",
      path: tracePath,
      form: zipForm(stamped),
      cookie: await sessionCookie(restrictedAdmin.id),
    });
    expect(restricted.status).toBe(302);
  });

  it("a large leaked file streams through: memory stays flat and only its end is kept", async () => {
    const { leaker, stamped } = await leakedCopy("Bulky Bob", "Fortress");
    const fillerBytes = 192 * 1024 * 1024;
    const boundary = "----leak-trace-boundary";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    );
    const foot = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
    const slice = new Uint8Array(1024 * 1024).fill(0x41);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent < fillerBytes) {
          sent += slice.length;
          // A fresh copy each time, as bytes off a socket would be.
          controller.enqueue(slice.slice());
          return;
        }
        controller.enqueue(stamped);
        controller.enqueue(foot);
        controller.close();
      },
    });
    const request = new Request(`http://localhost:3999${tracePath}`, {
      method: "POST",
      headers: { Cookie: adminCookie, "Content-Type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half",
    });
    global.gc?.();
    const baseline = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers));
    }, 5);
    const response = answerAsResponse(await adminRoute.action({ request, params: {}, context: {} }));
    clearInterval(sampler);
    expect(sent).toBe(fillerBytes);
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toMatchObject({ intent: "trace-zip", traced: { fileName: "big.zip", number: leaker.number } });
    // 192 MiB went through; what was alive at any moment stayed far below that.
    console.info(`leaked-file lookup: 192 MiB upload, peak heap+buffers growth ${(peak / 1024 / 1024).toFixed(1)} MiB`);
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);
});

/** The archive comment of a ZIP's bytes. */
function commentOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(findEocd(bytes.subarray(-MAX_TAIL_BYTES), bytes.length)!.comment);
}

/** The same archive with its comment replaced, as any ZIP tool can do. */
function withComment(bytes: Uint8Array, comment: string): Uint8Array {
  const tail = bytes.subarray(-MAX_TAIL_BYTES);
  const info = findEocd(tail, bytes.length)!;
  return Buffer.concat([bytes.subarray(0, info.offset), eocdWithComment(tail, info, bytes.length, new TextEncoder().encode(comment))]);
}

describe("signed stamps", () => {
  it("a paid download's comment is its number and a tag that only this site can write", async () => {
    const { leaker, stamped } = await leakedCopy("Signed Sam", "Lighthouse");
    const comment = commentOf(stamped);
    expect(comment).toMatch(new RegExp(`^Leak trace ${leaker.number}-[0-9a-f]{16}$`));
    expect(comment).toBe(`Leak trace ${leaker.number}-${traceTag(leaker.number)}`);
    expect(verifyTraceTag(leaker.number, traceTag(leaker.number))).toBe("verified");
    expect(verifyTraceTag(leaker.number + 1, traceTag(leaker.number))).toBe("forged");
  });

  it("a stamp rewritten to another account's number is reported as forged and names no one", async () => {
    const { leaker, stamped } = await leakedCopy("Framing Fred", "Windmill");
    const framed = await createTestUser({ currentTierId: TIER_2, tosAccepted: true, fullName: "Innocent Ida" });
    const tag = commentOf(stamped).split("-")[1]!;
    for (const [comment, number] of [
      [`Leak trace ${framed.number}-${tag}`, framed.number],
      [`Leak trace ${leaker.number}-0123456789abcdef`, leaker.number],
      [`Leak trace ${framed.number}-x`, framed.number],
    ] as const) {
      const response = await callRoute(adminRoute, {
        method: "POST",
        path: tracePath,
        form: zipForm(withComment(stamped, comment), "forged.zip"),
        cookie: adminCookie,
      });
      expect(response.status, comment).toBe(422);
      const body = await readJsonBody(response);
      expect(body, comment).toEqual({ intent: "trace-zip", error: ADMIN_MESSAGES.forgedTrace, traced: { fileName: "forged.zip", number, stamp: "forged" } });
      expect(JSON.stringify(body)).not.toContain("Innocent Ida");
    }
  });

  it("an older stamp without a tag is still read, and labelled untagged", async () => {
    const { post, leaker, stamped } = await leakedCopy("Old Olga", "Mill");
    const response = await callRoute(adminRoute, {
      method: "POST",
      path: tracePath,
      form: zipForm(withComment(stamped, `Leak trace ${leaker.number}`), "old.zip"),
      cookie: adminCookie,
    });
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toEqual({
      intent: "trace-zip",
      traced: { fileName: "old.zip", number: leaker.number, stamp: "untagged" },
      result: {
        number: leaker.number,
        stamp: "untagged",
        user: expect.objectContaining({ id: leaker.id }),
        downloads: [expect.objectContaining({ postId: post.id })],
      },
    });
  });

  it("the code search takes the stamp as written: number-tag verifies, a wrong tag is refused, a bare number is untagged", async () => {
    const { post, leaker } = await leakedCopy("Typed Tom", "Harbour");
    const tag = traceTag(leaker.number);
    const search = async (code: string) => {
      const page = await callRoute(adminRoute, {
        method: "POST",
        path: "/admin",
        form: { intent: "search-by-code", code, keyword: "harbour" },
        cookie: adminCookie,
      });
      const api = await callRoute(searchApiRoute, {
        method: "POST",
        path: "/api/admin/search-by-code",
        json: { code, keyword: "harbour" },
        cookie: adminCookie,
      });
      return { page: { status: page.status, body: await readJsonBody(page) }, api: { status: api.status, body: await readJsonBody(api) } };
    };
    for (const code of [`${leaker.number}-${tag}`, `${leaker.number}-${tag.toUpperCase()}`, ` ${leaker.number}-${tag} `]) {
      const { page, api } = await search(code);
      expect(page.status, code).toBe(200);
      const result = page.body.result as { downloads: Record<string, unknown>[] };
      expect(result).toEqual({
        number: leaker.number,
        stamp: "verified",
        user: expect.objectContaining({ id: leaker.id }),
        downloads: [expect.objectContaining({ postId: post.id })],
      });
      // The API keeps its documented payload: the page's account and version fields are left out.
      const documented = result.downloads.map(({ _id, postId, postTitle, username, date }) => ({ _id, postId, postTitle, username, date }));
      expect(api).toEqual({ status: 200, body: { number: leaker.number, stamp: "verified", downloads: documented } });
    }
    const wrong = await search(`${leaker.number + 1}-${tag}`);
    expect(wrong.page.status).toBe(422);
    expect(wrong.page.body).toMatchObject({ intent: "search-by-code", error: ADMIN_MESSAGES.forgedTrace });
    expect(wrong.api).toEqual({ status: 422, body: { error: ADMIN_MESSAGES.forgedTrace } });
    const bare = await search(String(leaker.number));
    expect(bare.api).toEqual({ status: 200, body: { number: leaker.number, stamp: "untagged", downloads: [expect.objectContaining({ postId: post.id })] } });
  });

  it("a stamp stays verified while its secret is listed in SESSION_SECRET, and no longer once it is removed", async () => {
    const old = process.env.SESSION_SECRET!;
    const oldTag = traceTag(77);
    try {
      setEnv("SESSION_SECRET", `rotated-secret-rotated-secret-0123456789,${old}`);
      expect(traceTag(77)).not.toBe(oldTag);
      expect(verifyTraceTag(77, oldTag)).toBe("verified");
      setEnv("SESSION_SECRET", "rotated-secret-rotated-secret-0123456789");
      expect(verifyTraceTag(77, oldTag)).toBe("forged");
    } finally {
      setEnv("SESSION_SECRET", old);
    }
  });
});

describe("streamTail", () => {
  it("keeps exactly the last bytes whatever the chunk sizes", async () => {
    const bytes = new Uint8Array(300_000).map((_, index) => (index * 31) & 0xff);
    for (const size of [1, 7, 1000, 65_557, 65_558, 200_000, 300_000]) {
      async function* chunks() {
        for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
      }
      const { tail, size: total } = await streamTail(chunks(), MAX_TAIL_BYTES);
      expect(total).toBe(bytes.length);
      expect(Buffer.from(tail).equals(Buffer.from(bytes.subarray(bytes.length - MAX_TAIL_BYTES)))).toBe(true);
    }
    const short = await streamTail(
      (async function* () {
        yield new Uint8Array([1, 2]);
        yield new Uint8Array([3]);
      })(),
      10,
    );
    expect([...short.tail]).toEqual([1, 2, 3]);
  });
});
