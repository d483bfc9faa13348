// Issue 16, item 4: the admin drops a leaked ZIP on the code search and gets the leak-trace
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
import { streamTail } from "~/utils/stream-tail.server";
import { MAX_TAIL_BYTES } from "~/utils/zip-eocd";
import { appDatabaseSettled, callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
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
  writeZip(zipPath, [{ name: "mod/readme.txt", text: `${title}\n` }, { name: "mod/data.bin", text: "0123456789", repeat: 3000 }], { deflate: true });
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
      traced: { fileName: "ship (1).zip", number: leaker.number },
      result: { number: leaker.number, downloads: [expect.objectContaining({ postId: post.id, postTitle: "Pirate Ship", username: "Leaky Larry" })] },
    });
    // The same answer as searching by that number (no keyword: every download).
    const bySearch = await callRoute(adminRoute, { method: "POST", path: "/admin", form: { intent: "search-by-code", code: String(leaker.number), keyword: "pirate" }, cookie: adminCookie });
    expect((await readJsonBody<{ result: unknown }>(bySearch)).result).toEqual({ number: leaker.number, downloads: [expect.objectContaining({ postId: post.id })] });
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
    const notZip = await callRoute(adminRoute, { method: "POST", path: tracePath, form: zipForm(new Uint8Array(5000).fill(80), "notes.txt"), cookie: adminCookie });
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
    expect(await readJsonBody(response)).toEqual({ intent: "trace-zip", error: "User not found.", traced: { fileName: "leaked.zip", number: leaker.number } });
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
    const restricted = await callRoute(adminRoute, { method: "POST", path: tracePath, form: zipForm(stamped), cookie: await sessionCookie(restrictedAdmin.id) });
    expect(restricted.status).toBe(302);
  });

  it("a large leaked file streams through: memory stays flat and only its end is kept", async () => {
    const { leaker, stamped } = await leakedCopy("Bulky Bob", "Fortress");
    const fillerBytes = 192 * 1024 * 1024;
    const boundary = "----leak-trace-boundary";
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`);
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
    } as RequestInit & { duplex: "half" });
    global.gc?.();
    const baseline = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers));
    }, 5);
    const response = (await adminRoute.action({ request, params: {}, context: {} })) as Response;
    clearInterval(sampler);
    expect(sent).toBe(fillerBytes);
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toMatchObject({ intent: "trace-zip", traced: { fileName: "big.zip", number: leaker.number } });
    // 192 MiB went through; what was alive at any moment stayed far below that.
    console.info(`leaked-file lookup: 192 MiB upload, peak heap+buffers growth ${(peak / 1024 / 1024).toFixed(1)} MiB`);
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);
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
    const short = await streamTail((async function* () {
      yield new Uint8Array([1, 2]);
      yield new Uint8Array([3]);
    })(), 10);
    expect([...short.tail]).toEqual([1, 2, 3]);
  });
});
