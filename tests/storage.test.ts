// One contract for both storage backends: the local folder and S3 (against s3rver).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStorage, type Storage } from "~/integrations/storage.server";
import { startS3rver } from "./storage-s3rver";

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

function bytes(size: number, seed = 1): Buffer {
  const buffer = Buffer.alloc(size);
  for (let index = 0; index < size; index++) buffer[index] = (index * 31 + seed) & 0xff;
  return buffer;
}

function* chunked(buffer: Buffer, size: number) {
  for (let offset = 0; offset < buffer.length; offset += size) yield buffer.subarray(offset, offset + size);
}

const localRoot = mkdtempSync(path.join(os.tmpdir(), "clib-storage-"));
let s3: Awaited<ReturnType<typeof startS3rver>>;

beforeAll(async () => {
  s3 = await startS3rver();
});

afterAll(async () => {
  await s3?.stop();
  rmSync(localRoot, { recursive: true, force: true });
});

const backends: [string, () => Storage][] = [
  ["local folder", () => new LocalStorage(localRoot)],
  ["S3 (s3rver)", () => s3.storage],
];

describe.each(backends)("storage contract: %s", (_name, make) => {
  it("stores a buffer and reads it back, whole and by range", async () => {
    const store = make();
    const data = bytes(5000);
    expect(await store.put("posts/a/file.bin", data)).toEqual({ size: 5000 });
    const info = await store.stat("posts/a/file.bin");
    expect(info?.size).toBe(5000);
    expect(info?.etag).toMatch(/^".+"$/);
    expect((await readAll(await store.read("posts/a/file.bin"))).equals(data)).toBe(true);
    expect((await readAll(await store.read("posts/a/file.bin", { start: 100, end: 199 }))).equals(data.subarray(100, 200))).toBe(true);
  });

  it("streams a large body in without knowing its length (multipart on S3)", async () => {
    const store = make();
    const data = bytes(20 * 1024 * 1024 + 123, 7);
    const result = await store.put("posts/b/big.bin", Readable.from(chunked(data, 64 * 1024)));
    expect(result.size).toBe(data.length);
    expect((await store.stat("posts/b/big.bin"))?.size).toBe(data.length);
    const copy = await readAll(await store.read("posts/b/big.bin"));
    expect(createHash("sha256").update(copy).digest("hex")).toBe(createHash("sha256").update(data).digest("hex"));
  });

  it("replaces an object and changes its etag", async () => {
    const store = make();
    await store.put("images/posts/x.jpg", bytes(10, 1));
    const first = await store.stat("images/posts/x.jpg");
    await store.put("images/posts/x.jpg", bytes(20, 2));
    const second = await store.stat("images/posts/x.jpg");
    expect(second?.size).toBe(20);
    expect(second?.etag).not.toBe(first?.etag);
  });

  it("answers null for missing objects and deletes", async () => {
    const store = make();
    expect(await store.stat("nothing/here.bin")).toBeNull();
    await store.put("posts/c/gone.bin", bytes(3));
    await store.delete("posts/c/gone.bin");
    expect(await store.stat("posts/c/gone.bin")).toBeNull();
    await store.delete("posts/c/gone.bin");
  });

  it("refuses keys that are paths (traversal, absolute, backslashes)", async () => {
    const store = make();
    for (const key of ["../etc/passwd", "/etc/passwd", "posts/../../x", "posts\\x", "", "posts//x"]) {
      await expect(store.put(key, bytes(1))).rejects.toThrow(/Invalid storage key/);
      await expect(store.stat(key)).rejects.toThrow(/Invalid storage key/);
    }
  });

  it("fails a stream that errors midway without leaving an object behind", async () => {
    const store = make();
    async function* failing() {
      yield bytes(1024);
      throw new Error("client went away");
    }
    await expect(store.put("posts/d/broken.bin", Readable.from(failing()))).rejects.toThrow();
    expect(await store.stat("posts/d/broken.bin")).toBeNull();
  });
});
