// The ZIP machinery on real archives (written by Python's zipfile): entry lists from ranged
// storage reads on both backends, refusal of broken archives, the changelog, the content hash
// computed while streaming, and trace stamping checked by unzip and Python.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStorage, type Storage } from "~/integrations/storage.server";
import { listZipEntries, UnreadableZipError } from "~/integrations/zip.server";
import { readStamped, stampedView, stampLayout } from "~/integrations/zip-stamp.server";
import { contentHashFeed } from "~/utils/content-hash";
import { hashingStream } from "~/utils/upload-hash.server";
import { zipChangelog } from "~/utils/zip-changelog";
import { canonicalTail, findEocd, traceComment, traceNumberOf } from "~/utils/zip-eocd";
import { startS3rver } from "./storage-s3rver";
import { archiveComment, testArchive, writeZip, writeZip64Archive } from "./zip-files";

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-zip-"));
const local = new LocalStorage(path.join(folder, "store"));
let s3: Awaited<ReturnType<typeof startS3rver>>;

beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.stop();
  rmSync(folder, { recursive: true, force: true });
});

function zipBytes(name: string, files: Parameters<typeof writeZip>[1], options?: Parameters<typeof writeZip>[2]): Buffer {
  const file = path.join(folder, name);
  writeZip(file, files, options);
  return readFileSync(file);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const V1 = [
  { name: "mod/readme.txt", text: "Version one\n" },
  { name: "mod/mesh.obj", text: "v 0 0 0\n", repeat: 500 },
  { name: "mod/old-texture.png", text: "PNG", repeat: 10 },
];
const V2 = [
  { name: "mod/readme.txt", text: "Version two\n" },
  { name: "mod/mesh.obj", text: "v 0 0 0\n", repeat: 500 },
  { name: "mod/new-texture.png", text: "PNG2", repeat: 10 },
];

describe.each<[string, () => Storage]>([
  ["local folder", () => local],
  ["S3 (s3rver)", () => s3.storage],
])("entry lists from %s", (_name, store) => {
  it("lists path, size and CRC-32 of each file from the central directory", async () => {
    await store().put("zips/v1.zip", zipBytes("v1.zip", V1, { deflate: true }));
    const entries = await listZipEntries(store(), "zips/v1.zip");
    expect(entries).toEqual(
      V1.map((file) => {
        const data = Buffer.from(file.text.repeat(file.repeat ?? 1));
        return { path: file.name, size: data.length, crc32: crc32(data) };
      }),
    );
  });

  it("refuses a truncated archive and a file that is no ZIP with a clear message", async () => {
    const whole = zipBytes("cut.zip", V1);
    await store().put("zips/cut.zip", whole.subarray(0, whole.length - 30));
    await expect(listZipEntries(store(), "zips/cut.zip")).rejects.toThrow(UnreadableZipError);
    await expect(listZipEntries(store(), "zips/cut.zip")).rejects.toThrow(/corrupt or truncated/);
    await store().put("zips/noise.zip", Buffer.alloc(5000, 7));
    await expect(listZipEntries(store(), "zips/noise.zip")).rejects.toThrow(/corrupt or truncated/);
  });
});

describe("changelog between two real archives", () => {
  it("names exactly the added, removed and changed files", async () => {
    await local.put("zips/a.zip", zipBytes("a.zip", V1));
    await local.put("zips/b.zip", zipBytes("b.zip", V2, { deflate: true }));
    const changelog = zipChangelog(await listZipEntries(local, "zips/a.zip"), await listZipEntries(local, "zips/b.zip"));
    expect(changelog.added.map((entry) => entry.path)).toEqual(["mod/new-texture.png"]);
    expect(changelog.removed.map((entry) => entry.path)).toEqual(["mod/old-texture.png"]);
    // Same size ("Version one" / "Version two"), other CRC: still a change; the mesh is unchanged.
    expect(changelog.changed.map((entry) => [entry.path, entry.before.size, entry.after.size])).toEqual([["mod/readme.txt", 12, 12]]);
  });
});

describe("content hash", () => {
  function oneShot(bytes: Buffer): string {
    const tailStart = Math.max(0, bytes.length - 65557);
    return createHash("sha256")
      .update(bytes.subarray(0, tailStart))
      .update(canonicalTail(bytes.subarray(tailStart), bytes.length))
      .digest("hex");
  }

  it("ignores only the ZIP comment, and equals the plain SHA-256 for other files", async () => {
    const plain = zipBytes("c0.zip", V1);
    const commented = zipBytes("c1.zip", V1, { comment: "PK\x05\x06 looks like a record but is a comment" });
    expect(oneShot(plain)).toBe(oneShot(commented));
    expect(oneShot(plain)).not.toBe(oneShot(zipBytes("c2.zip", V2)));
    const other = Buffer.alloc(100_000, 3);
    expect(oneShot(other)).toBe(createHash("sha256").update(other).digest("hex"));
    expect(findEocd(commented.subarray(-200), commented.length)?.offset).toBe(plain.length - 22);
  });

  it("is computed while streaming, whatever the chunk sizes, with the plain SHA-256 and size", async () => {
    const bytes = zipBytes("big.zip", [{ name: "x.bin", text: "0123456789abcdef", repeat: 20_000 }], { comment: "hello" });
    for (const chunkSize of [1000, 65_557, 70_001, bytes.length]) {
      const hashing = hashingStream();
      const chunks = [];
      for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.subarray(at, at + chunkSize));
      const out: Buffer[] = [];
      await pipeline(Readable.from(chunks), hashing.stream, async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) out.push(chunk);
      });
      expect(Buffer.concat(out).equals(bytes)).toBe(true);
      expect(hashing.digest()).toEqual({ sha256: createHash("sha256").update(bytes).digest("hex"), contentHash: oneShot(bytes), size: bytes.length });
    }
    const feedHash = createHash("sha256");
    const feed = contentHashFeed((part) => feedHash.update(part));
    feed.push(bytes.subarray(0, 10));
    feed.push(bytes.subarray(10));
    feed.finish();
    expect(feedHash.digest("hex")).toBe(oneShot(bytes));
  });
});

describe("trace stamping", () => {
  const comment = traceComment(4242);

  it("a stamped copy tests clean in unzip and Python, carries the number, keeps the content hash", async () => {
    const bytes = zipBytes("paid.zip", V2, { comment: "made by the creator" });
    await local.put("zips/paid.zip", bytes);
    const view = await stampedView(local, "zips/paid.zip", comment, "t4242");
    expect(view).not.toBeNull();
    const info = await view!.stat("zips/paid.zip");
    const stamped = await readAll(await view!.read("zips/paid.zip"));
    expect(stamped.length).toBe(info!.size);
    expect(info!.etag).not.toBe((await local.stat("zips/paid.zip"))!.etag);
    const file = path.join(folder, "stamped.zip");
    writeFileSync(file, stamped);
    expect(testArchive(file)).toMatch(/No errors detected/);
    expect(archiveComment(file)).toBe("Leak trace 4242");
    expect(traceNumberOf(stamped.subarray(-1000), stamped.length)).toBe(4242);
    const canonical = (b: Buffer) => createHash("sha256").update(canonicalTail(b, b.length)).digest("hex");
    expect(canonical(stamped)).toBe(canonical(bytes));
  });

  it("ranges spread over the copy, across the seam, reassemble to the same bytes", async () => {
    const bytes = zipBytes("ranges.zip", V1);
    await local.put("zips/ranges.zip", bytes);
    const layout = (await stampLayout(local, "zips/ranges.zip", bytes.length, comment))!;
    const whole = await readAll(readStamped(local, "zips/ranges.zip", layout));
    const cuts = [0, 1, 777, layout.prefixLength - 1, layout.prefixLength, layout.prefixLength + 3, layout.size - 1, layout.size];
    const parts: Buffer[] = [];
    for (let index = 0; index < cuts.length - 1; index++) {
      if (cuts[index]! >= cuts[index + 1]!) continue;
      parts.push(await readAll(readStamped(local, "zips/ranges.zip", layout, { start: cuts[index]!, end: cuts[index + 1]! - 1 })));
    }
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
    expect(whole.subarray(0, layout.prefixLength).equals(bytes.subarray(0, layout.prefixLength))).toBe(true);
  });

  it("stamps a ZIP64 archive by replacing only the EOCD, and refuses what it cannot stamp", async () => {
    const file = path.join(folder, "z64.zip");
    writeZip64Archive(file, "old comment");
    const bytes = readFileSync(file);
    await local.put("zips/z64.zip", bytes);
    const view = (await stampedView(local, "zips/z64.zip", comment, "t"))!;
    const stamped = await readAll(await view.read("zips/z64.zip"));
    expect(findEocd(stamped.subarray(-200), stamped.length)?.zip64).toBe(true);
    writeFileSync(path.join(folder, "z64-stamped.zip"), stamped);
    expect(testArchive(path.join(folder, "z64-stamped.zip"))).toMatch(/No errors detected/);
    expect(archiveComment(path.join(folder, "z64-stamped.zip"))).toBe("Leak trace 4242");

    await local.put("zips/trailing.zip", Buffer.concat([bytes, Buffer.from("junk after the end")]));
    expect(await stampedView(local, "zips/trailing.zip", comment, "t")).toBeNull();
    await local.put("zips/plain.bin", Buffer.alloc(4000, 1));
    expect(await stampedView(local, "zips/plain.bin", comment, "t")).toBeNull();
    // ZIP64 markers in the EOCD without the locator before it: broken, served as stored.
    const broken = Buffer.from(zipBytes("small.zip", V1));
    broken.writeUInt32LE(0xffffffff, broken.length - 22 + 16);
    await local.put("zips/broken64.zip", broken);
    expect(await stampedView(local, "zips/broken64.zip", comment, "t")).toBeNull();
    truncateSync(file, 0);
  });
});
