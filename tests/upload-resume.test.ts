// Resumable uploads (docs/product.md#uploads-that-resume): a file sent in parts, cut off half way
// through a part, resumed after asking what arrived, and completed into the post's version, with
// the local driver and against a real S3 server (s3rver, parts PUT to presigned URLs). The size is
// 64 MiB (eight 8 MiB parts) in the suite; UPLOAD_RESUME_BYTES=2147483648 runs the 2 GiB.
// The bytes are generated as a stream, never held whole.
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { setStorageForTests, storage } from "~/integrations/storage.server";
import { cleanUpAbandonedUploads, type UploadStatus } from "~/models/upload-session.server";
import * as startRoute from "~/routes/api.uploads";
import * as sessionRoute from "~/routes/api.uploads.$uploadId";
import * as completeRoute from "~/routes/api.uploads.$uploadId.complete";
import * as partRoute from "~/routes/api.uploads.$uploadId.parts.$part";
import { createTestUser, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";
import { startS3rver } from "./storage-s3rver";

const FILE_BYTES = Number(process.env.UPLOAD_RESUME_BYTES ?? 64 * 1024 * 1024) + 12_345;
const BLOCK = 64 * 1024;
const BASE = "http://localhost:3999";

/** Byte `offset..offset+length` of the source file: each 64 KiB block filled from its index, so no two blocks are alike. */
function sourceBytes(offset: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let at = 0; at < length;) {
    const absolute = offset + at;
    const block = Math.floor(absolute / BLOCK);
    const end = Math.min(length, (block + 1) * BLOCK - offset);
    out.fill(`block ${block};`, at, end);
    at = end;
  }
  return out;
}

/** The source's bytes as a stream of 1 MiB chunks, optionally failing after `cutAfter` bytes (a dropped connection). */
function partStream(offset: number, length: number, cutAfter?: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const step = 1024 * 1024;
  return new ReadableStream({
    pull(controller) {
      if (cutAfter !== undefined && sent >= cutAfter) return controller.error(new Error("connection dropped"));
      if (sent >= length) return controller.close();
      const size = Math.min(step, length - sent);
      controller.enqueue(sourceBytes(offset + sent, size));
      sent += size;
    },
  });
}

function sourceSha256(): string {
  const hash = createHash("sha256");
  for (let offset = 0; offset < FILE_BYTES; offset += 4 * 1024 * 1024) hash.update(sourceBytes(offset, Math.min(4 * 1024 * 1024, FILE_BYTES - offset)));
  return hash.digest("hex");
}

async function start(cookie: string, postId: string): Promise<Response> {
  const request = new Request(`${BASE}/api/uploads`, {
    method: "POST",
    headers: { Cookie: cookie, "Content-Type": "application/json" },
    body: JSON.stringify({ postId, fileName: "Big Pack.zip.bin", size: FILE_BYTES, label: "V2.0", notes: "Resumed." }),
  });
  return startRoute.action({ request, params: {}, context: {} });
}

async function status(cookie: string, uploadId: string): Promise<Response> {
  return sessionRoute.loader({ request: new Request(`${BASE}/api/uploads/${uploadId}`, { headers: { Cookie: cookie } }), params: { uploadId }, context: {} });
}

async function complete(cookie: string, uploadId: string): Promise<Response> {
  const request = new Request(`${BASE}/api/uploads/${uploadId}/complete`, { method: "POST", headers: { Cookie: cookie } });
  return completeRoute.action({ request, params: { uploadId }, context: {} });
}

async function abort(cookie: string, uploadId: string): Promise<Response> {
  const request = new Request(`${BASE}/api/uploads/${uploadId}`, { method: "DELETE", headers: { Cookie: cookie } });
  return sessionRoute.action({ request, params: { uploadId }, context: {} });
}

/** Sends part `n` as the browser would: to our route (local) or to its presigned S3 URL. */
async function sendPart(cookie: string, upload: UploadStatus, url: string, partNumber: number, cutAfter?: number): Promise<number> {
  const offset = (partNumber - 1) * upload.partSize;
  const length = Math.min(upload.partSize, upload.size - offset);
  const init = { method: "PUT", body: partStream(offset, length, cutAfter), duplex: "half" } as RequestInit;
  try {
    if (upload.driver === "s3") {
      return (await fetch(url, { ...init, headers: { "Content-Length": String(length) } })).status;
    }
    const request = new Request(`${BASE}${url}`, { ...init, headers: { Cookie: cookie, "Content-Type": "application/octet-stream" } });
    return (await partRoute.action({ request, params: { uploadId: upload.id, part: String(partNumber) }, context: {} })).status;
  } catch {
    return 0;
  }
}

async function storedSha256(key: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of await (await storage()).read(key)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The same story for each driver: cut half way, ask, resume, complete; the stored file is the source. */
async function cutAndResume(expectedSha: string) {
  const post = await createPost({ fileSize: null });
  const admin = await createTestUser({ isAdmin: true });
  const cookie = await sessionCookie(admin.id);
  const started = await start(cookie, post.id);
  expect(started.status).toBe(201);
  let upload = (await started.json()) as UploadStatus;
  const first = upload;
  expect(upload.partCount).toBeGreaterThan(2);
  const half = Math.floor(upload.partCount / 2);
  // An answer lists at most 100 part URLs: send those, ask again, until parts 1..upTo arrived.
  const sendUpTo = async (upTo: number) => {
    for (;;) {
      const due = upload.partUrls.filter((part) => part.partNumber <= upTo);
      if (due.length === 0) return;
      for (const { partNumber, url } of due) expect(await sendPart(cookie, upload, url, partNumber)).toBe(200);
      upload = (await (await status(cookie, upload.id)).json()) as UploadStatus;
    }
  };
  // The first half arrives; then the connection drops half way through the next part.
  await sendUpTo(half);
  const cut = upload.partUrls.find((part) => part.partNumber === half + 1)!;
  expect(await sendPart(cookie, upload, cut.url, cut.partNumber, Math.floor(upload.partSize / 2))).not.toBe(200);
  await expect(complete(cookie, upload.id).then((response) => response.status)).resolves.toBe(409);

  // Resuming: ask what arrived; exactly the first half, nothing of the cut part.
  upload = (await (await status(cookie, upload.id)).json()) as UploadStatus;
  expect(upload.received.map((part) => part.partNumber)).toEqual(Array.from({ length: half }, (_, index) => index + 1));
  expect(upload.receivedBytes).toBe(half * upload.partSize);
  expect(upload.missing[0]).toBe(half + 1);
  await sendUpTo(upload.partCount);
  expect(upload.missing).toEqual([]);

  // Two completes at once (a double click, a retry racing the first): one version, the other refused.
  const versionsBefore = await db.postVersion.count({ where: { postId: post.id } });
  const answers = await Promise.all([complete(cookie, upload.id), complete(cookie, upload.id)]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
  const done = answers.find((answer) => answer.status === 200)!;
  const refused = (await answers.find((answer) => answer.status === 409)!.json()) as { error: string };
  expect(refused.error).toBe("This upload is already being completed. Ask the upload or the post for the result.");
  expect(await db.postVersion.count({ where: { postId: post.id } })).toBe(versionsBefore + 1);
  const body = (await done.json()) as { version: { sha256: string; size: number; label: string } };
  expect(body.version).toMatchObject({ sha256: expectedSha, size: FILE_BYTES, label: "V2.0" });
  const stored = await db.post.findUniqueOrThrow({ where: { id: post.id }, include: { currentVersion: true } });
  expect(stored.fileSize).toBe(BigInt(FILE_BYTES));
  expect(stored.currentVersion?.notes).toBe("Resumed.");
  expect(await storedSha256(stored.driveFileId!)).toBe(expectedSha);
  // The session and its parts are gone.
  expect(await db.uploadSession.count({ where: { id: upload.id } })).toBe(0);
  return { first, admin, cookie };
}

async function rolesRefused(uploadId: string) {
  const otherAdmin = await createTestUser({ isAdmin: true });
  const member = await createTestUser();
  const otherCookie = await sessionCookie(otherAdmin.id);
  const memberCookie = await sessionCookie(member.id);
  for (const [cookie, expected] of [
    [otherCookie, 403],
    [memberCookie, 404],
  ] as const) {
    expect((await status(cookie, uploadId)).status).toBe(expected);
    expect((await complete(cookie, uploadId)).status).toBe(expected);
    expect((await abort(cookie, uploadId)).status).toBe(expected);
  }
  const other = (await (await status(otherCookie, uploadId)).json()) as { error: string };
  expect(other.error).toBe("Only the admin who started this upload may continue it.");
  expect(await db.uploadSession.count({ where: { id: uploadId } })).toBe(1);
}

describe("resumable uploads, local driver", () => {
  const expectedSha = sourceSha256();
  const partsDir = (id: string) => path.join(process.env.DATA_DIR!, "uploads", id);

  it(
    "an upload cut half way through a part resumes where it stopped; the stored file is the source",
    async () => {
      await cutAndResume(expectedSha);
    },
    FILE_BYTES > 1e9 ? 3_600_000 : 180_000,
  );

  it("only the admin who started an upload may continue, query, complete or abort it", async () => {
    const post = await createPost({ fileSize: null });
    const admin = await createTestUser({ isAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const upload = (await (await start(cookie, post.id)).json()) as UploadStatus;
    const otherAdmin = await createTestUser({ isAdmin: true });
    const part = upload.partUrls[0]!;
    expect(await sendPart(await sessionCookie(otherAdmin.id), upload, part.url, 1)).toBe(403);
    expect(existsSync(partsDir(upload.id))).toBe(false);
    await rolesRefused(upload.id);
    expect((await abort(cookie, upload.id)).status).toBe(200);
    expect(await db.uploadSession.count({ where: { id: upload.id } })).toBe(0);
  });

  it("an upload abandoned for 24 hours is cleaned up, its parts deleted", async () => {
    const post = await createPost({ fileSize: null });
    const admin = await createTestUser({ isAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const upload = (await (await start(cookie, post.id)).json()) as UploadStatus;
    expect(await sendPart(cookie, upload, upload.partUrls[0]!.url, 1)).toBe(200);
    expect(readdirSync(partsDir(upload.id))).toEqual(["1"]);
    // 23 hours on: still kept.
    await cleanUpAbandonedUploads(new Date(Date.now() + 23 * 3600_000));
    expect(await db.uploadSession.count({ where: { id: upload.id } })).toBe(1);
    await cleanUpAbandonedUploads(new Date(Date.now() + 25 * 3600_000));
    expect(await db.uploadSession.count({ where: { id: upload.id } })).toBe(0);
    expect(existsSync(partsDir(upload.id))).toBe(false);
  });
});

describe("resumable uploads, S3 (s3rver)", () => {
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  const expectedSha = sourceSha256();

  beforeAll(async () => {
    s3 = await startS3rver();
    setStorageForTests(s3.storage);
  });
  afterAll(async () => {
    setStorageForTests(undefined);
    await s3.stop();
  });

  it(
    "parts go to presigned URLs; an upload cut half way resumes from ListParts; the stored file is the source",
    async () => {
      const { first: upload } = await cutAndResume(expectedSha);
      expect(upload.driver).toBe("s3");
      expect(upload.partUrls[0]!.url).toContain("X-Amz-Signature=");
      // Nothing is left in the bucket but the version's file.
      const keys: string[] = [];
      for await (const key of s3.storage.keys()) keys.push(key);
      expect(keys.filter((key) => key.startsWith("uploads/"))).toEqual([]);
    },
    FILE_BYTES > 1e9 ? 3_600_000 : 180_000,
  );

  it("another admin is refused", async () => {
    const post = await createPost({ fileSize: null });
    const admin = await createTestUser({ isAdmin: true });
    const upload = (await (await start(await sessionCookie(admin.id), post.id)).json()) as UploadStatus;
    await rolesRefused(upload.id);
  });

  it("an abandoned upload is aborted in S3 (its multipart upload no longer exists)", async () => {
    const post = await createPost({ fileSize: null });
    const admin = await createTestUser({ isAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const upload = (await (await start(cookie, post.id)).json()) as UploadStatus;
    expect(await sendPart(cookie, upload, upload.partUrls[0]!.url, 1)).toBe(200);
    const session = await db.uploadSession.findUniqueOrThrow({ where: { id: upload.id } });
    expect(await s3.storage.listParts(session.storageKey, session.s3UploadId!)).toHaveLength(1);
    // A part that reached S3 an hour ago keeps the upload alive, even when nobody asked for a day.
    await db.uploadSession.update({ where: { id: upload.id }, data: { lastActivity: new Date(Date.now() - 30 * 3600_000) } });
    await cleanUpAbandonedUploads(new Date(Date.now() + 3600_000));
    expect(await db.uploadSession.count({ where: { id: upload.id } })).toBe(1);
    await cleanUpAbandonedUploads(new Date(Date.now() + 25 * 3600_000));
    expect(await db.uploadSession.count({ where: { id: upload.id } })).toBe(0);
    await expect(s3.storage.listParts(session.storageKey, session.s3UploadId!)).rejects.toMatchObject({ name: "NoSuchUpload" });
  });
});
