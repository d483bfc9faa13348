// A post file upload streams into storage: a 256 MiB multipart body goes through without the
// process ever holding it whole (resident memory grows far less than the file).
import { vi } from "vitest";

vi.hoisted(() => {
  process.env.POST_FILE_MAX_BYTES = String(1024 * 1024 * 1024);
});

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import * as fileRoute from "~/routes/api.upload.file.$id";
import { createTestUser, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";

const FILE_BYTES = 256 * 1024 * 1024;
const CHUNK = 256 * 1024;

/** A multipart body produced chunk by chunk, never materialised. */
function multipartStream(boundary: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const chunk = new Uint8Array(CHUNK).fill(0x61);
  let sent = 0;
  let stage = 0;
  return new ReadableStream({
    pull(controller) {
      if (stage === 0) {
        controller.enqueue(head);
        stage = 1;
      } else if (stage === 1) {
        controller.enqueue(chunk.slice());
        sent += CHUNK;
        if (sent >= FILE_BYTES) stage = 2;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
}

describe("POST /api/upload/file/{id} memory", () => {
  it("stores a 256 MiB upload while resident memory grows by much less than that", async () => {
    const post = await createPost({ fileSize: null });
    const admin = await createTestUser({ isAdmin: true });
    const boundary = "----libraryUploadBoundary";
    const request = new Request(`http://localhost:3999/api/upload/file/${post.id}`, {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, Cookie: await sessionCookie(admin.id) },
      body: multipartStream(boundary),
      duplex: "half",
    });
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const response = await fileRoute.action({ request, params: { id: post.id }, context: {} });
    clearInterval(sampler);
    expect(response.status).toBe(200);
    expect((await (await storage()).stat(`posts/${post.id}/big.bin`))?.size).toBe(FILE_BYTES);
    const stored = await db.post.findUniqueOrThrow({ where: { id: post.id }, include: { currentVersion: true } });
    expect(stored.fileSize).toBe(BigInt(FILE_BYTES));
    // The version's SHA-256, computed while the upload streamed, is the hash of the bytes sent.
    const expected = createHash("sha256");
    const chunk = new Uint8Array(CHUNK).fill(0x61);
    for (let sent = 0; sent < FILE_BYTES; sent += CHUNK) expected.update(chunk);
    expect(stored.currentVersion?.sha256).toBe(expected.digest("hex"));
    const grownMb = (peak - before) / 1024 / 1024;
    console.log(`upload of ${FILE_BYTES / 1024 / 1024} MiB: resident memory grew by ${grownMb.toFixed(0)} MB`);
    expect(grownMb).toBeLessThan(128);
  }, 120_000);
});
