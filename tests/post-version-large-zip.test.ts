// A 512 MiB ZIP (written by Python's zipfile) uploaded as a post version
// streams into storage while resident memory stays flat, the version's SHA-256 equals what
// `sha256sum` says of the file, and its entries are read from the stored central directory.
import { vi } from "vitest";

vi.hoisted(() => {
  process.env.POST_FILE_MAX_BYTES = String(1024 * 1024 * 1024);
});

import { execFileSync } from "node:child_process";
import { createReadStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as fileRoute from "~/routes/api.upload.file.$id";
import { createTestUser, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-bigzip-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const MIB = 1024 * 1024;

/** A stored (uncompressed) ZIP of four 128 MiB entries plus a small one, written in 1 MiB steps. */
function writeBigZip(file: string): void {
  execFileSync("python3", [
    "-c",
    `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
    archive.writestr("readme.txt", "large archive")
    for index in range(4):
        info = zipfile.ZipInfo(f"data/part-{index}.bin", date_time=(2024, 1, 1, 0, 0, 0))
        with archive.open(info, "w", force_zip64=True) as out:
            block = bytes([index + 1]) * (1024 * 1024)
            for _ in range(128):
                out.write(block)
`,
    file,
  ]);
}

/** The multipart body around the file, read from disk chunk by chunk. */
function multipartBody(boundary: string, file: string, label: string): ReadableStream<Uint8Array> {
  async function* parts() {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="label"\r\n\r\n${label}\r\n`);
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`);
    for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) yield chunk as Buffer;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return Readable.toWeb(Readable.from(parts())) as ReadableStream<Uint8Array>;
}

/** The CRC-32 of one 128 MiB part, computed 1 MiB at a time. */
function partCrc(index: number): number {
  const block = Buffer.alloc(MIB, index + 1);
  let value = 0;
  for (let step = 0; step < 128; step++) value = crc32(block, value);
  return value;
}

describe("a 512 MiB ZIP upload", () => {
  it("keeps memory flat, stores the SHA-256 sha256sum computes, and lists the entries", async () => {
    const file = path.join(folder, "big.zip");
    writeBigZip(file);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(512 * MIB);
    const expected = execFileSync("sha256sum", [file], { encoding: "utf8" }).split(" ")[0];

    const post = await createPost({ fileSize: null });
    const admin = await createTestUser({ isAdmin: true });
    const boundary = "----versionUploadBoundary";
    const request = new Request(`http://localhost:3999/api/upload/file/${post.id}`, {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, Cookie: await sessionCookie(admin.id) },
      body: multipartBody(boundary, file, "V5.0"),
      duplex: "half",
    });
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = Date.now();
    const response = await fileRoute.action({ request, params: { id: post.id }, context: {} });
    clearInterval(sampler);
    expect(response.status).toBe(200);
    const grownMb = (peak - before) / MIB;
    console.log(`upload of a ${(size / MIB).toFixed(0)} MiB ZIP as a version: ${Date.now() - started} ms, resident memory grew by ${grownMb.toFixed(0)} MB`);
    expect(grownMb).toBeLessThan(128);

    const version = await db.postVersion.findFirstOrThrow({ where: { postId: post.id } });
    expect(version.sha256).toBe(expected);
    expect(version.size).toBe(BigInt(size));
    expect(version.label).toBe("V5.0");
    expect(version.zipEntries).toEqual([
      { path: "readme.txt", size: 13, crc32: crc32("large archive") },
      ...[0, 1, 2, 3].map((index) => ({ path: `data/part-${index}.bin`, size: 128 * MIB, crc32: partCrc(index) })),
    ]);
  }, 300_000);
});
