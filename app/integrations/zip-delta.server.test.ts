// The delta writer against independent readers: old and new archives written by Python's zipfile,
// the delta read back by yauzl, `unzip -t` and Python. Unpacking the delta over the old version's
// files (its removed paths deleted) must give the new version's files byte for byte.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { LocalStorage } from "~/integrations/storage.server";
import { deltaLayout, planDelta, REMOVED_LIST_PATH } from "~/integrations/zip-delta.server";
import { listZipEntries, readZipDirectory } from "~/integrations/zip.server";
import { NeedsZip64Error, readLayout, zipLayout, type WrittenEntry } from "~/integrations/zip-writer.server";
import { archiveComment, testArchive, writeZip, type ZipFileSpec } from "../../tests/zip-files";

const root = mkdtempSync(path.join(tmpdir(), "zip-delta-"));
const store = new LocalStorage(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file of a ZIP on disk, path to bytes, as yauzl unpacks it (CRC-32 checked). */
function unpack(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error(`Cannot open ${file}`));
      const files = new Map<string, Buffer>();
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error(`Cannot read ${entry.fileName}`));
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("error", reject);
          stream.on("end", () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(files));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

let made = 0;
/** Stores a ZIP of `files` and answers its key and the path of its copy on disk. */
function stored(files: ZipFileSpec[], options: { zip64?: boolean } = {}): { key: string; file: string } {
  made += 1;
  const key = `zips/v${made}.zip`;
  const file = path.join(root, key);
  rmSync(file, { force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  writeZip(file, files, { deflate: true, ...options });
  return { key, file };
}

/** Writes the delta from `from` to `to` to disk; answers its file, bytes and plan. */
async function delta(from: { key: string }, to: { key: string }, comment = "Leak trace 42-abc") {
  const { layout, plan } = await deltaLayout(store, to.key, await listZipEntries(store, from.key), new TextEncoder().encode(comment));
  const bytes = await collect(readLayout(layout, (range) => store.read(to.key, range)));
  expect(bytes.length).toBe(layout.size);
  made += 1;
  const file = path.join(root, `delta-${made}.zip`);
  writeFileSync(file, bytes);
  return { file, bytes, plan };
}

/** The old version's files with the delta applied: removals first, then every entry but the list. */
async function applied(oldFile: string, deltaFile: string): Promise<Map<string, Buffer>> {
  const tree = await unpack(oldFile);
  const patch = await unpack(deltaFile);
  for (const line of patch.get(REMOVED_LIST_PATH)!.toString("utf8").split("\n")) if (line) tree.delete(line);
  for (const [name, bytes] of patch) if (name !== REMOVED_LIST_PATH) tree.set(name, bytes);
  return tree;
}

const OLD: ZipFileSpec[] = [
  { name: "Mods/unchanged.package", text: "same bytes in both versions ", repeat: 400 },
  { name: "Mods/changed.package", text: "first edition ", repeat: 300 },
  { name: "Mods/removed.package", text: "gone in the new version ", repeat: 50 },
  { name: "Mods/old-name.package", text: "renamed but the same content ", repeat: 80 },
  { name: "Tray/ümlaut name.trayitem", text: "non-ASCII names survive ", repeat: 10 },
];
const NEW: ZipFileSpec[] = [
  { name: "Mods/unchanged.package", text: "same bytes in both versions ", repeat: 400 },
  { name: "Mods/changed.package", text: "second edition, longer ", repeat: 350 },
  { name: "Mods/new-name.package", text: "renamed but the same content ", repeat: 80 },
  { name: "Mods/added/deep.package", text: "brand new ", repeat: 1000 },
  { name: "Tray/ümlaut name.trayitem", text: "non-ASCII names survive ", repeat: 10 },
];

describe("ZIP delta", () => {
  it("rebuilds the new version's files byte for byte from the old ones: added, changed, removed, renamed", async () => {
    const oldZip = stored(OLD);
    const newZip = stored(NEW);
    const { file, plan } = await delta(oldZip, newZip);
    expect(plan.changed.map((entry) => entry.path).sort()).toEqual(["Mods/added/deep.package", "Mods/changed.package", "Mods/new-name.package"]);
    expect(plan.removed.sort()).toEqual(["Mods/old-name.package", "Mods/removed.package"]);
    // Independent readers accept it, and it carries the stamp.
    expect(() => testArchive(file)).not.toThrow();
    expect(archiveComment(file)).toBe("Leak trace 42-abc");
    const removedList = (await unpack(file)).get(REMOVED_LIST_PATH)!.toString("utf8");
    expect(removedList.split("\n").filter(Boolean).sort()).toEqual(["Mods/old-name.package", "Mods/removed.package"]);

    const rebuilt = await applied(oldZip.file, file);
    const expected = await unpack(newZip.file);
    expect([...rebuilt.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [name, bytes] of expected) expect(rebuilt.get(name)!.equals(bytes), name).toBe(true);
  });

  it("copies the compressed data raw: the delta is the changed entries' stored bytes plus small headers", async () => {
    const oldZip = stored(OLD);
    const newZip = stored(NEW);
    const { bytes, plan } = await delta(oldZip, newZip);
    const compressed = plan.changed.reduce((sum, entry) => sum + entry.compressedSize, 0);
    const names = plan.changed.reduce((sum, entry) => sum + 2 * Buffer.byteLength(entry.path), 0);
    // Each entry: a 30-byte local header and a 46-byte central header with its name; the list; the end record and comment.
    const list = plan.removed.reduce((sum, name) => sum + Buffer.byteLength(name) + 1, 0);
    const overhead = plan.changed.length * 76 + names + 76 + 2 * REMOVED_LIST_PATH.length + list + 22 + "Leak trace 42-abc".length;
    expect(bytes.length).toBe(compressed + overhead);
    // Each copied entry's data is the stored one, byte for byte (no recompression).
    const source = readFileSync(newZip.file);
    for (const entry of plan.changed) {
      const at = entry.localHeaderOffset + 30 + source.readUInt16LE(entry.localHeaderOffset + 26) + source.readUInt16LE(entry.localHeaderOffset + 28);
      expect(bytes.includes(source.subarray(at, at + entry.compressedSize)), entry.path).toBe(true);
    }
  });

  it("answers an empty delta (only the empty list) between equal trees, and a removal-only delta", async () => {
    const a = stored(OLD);
    const b = stored(OLD);
    const same = await delta(a, b);
    expect([...(await unpack(same.file)).entries()].map(([name, data]) => [name, data.length])).toEqual([[REMOVED_LIST_PATH, 0]]);
    const fewer = stored(OLD.slice(0, 2));
    const removals = await delta(a, fewer);
    const rebuilt = await applied(a.file, removals.file);
    expect([...rebuilt.keys()].sort()).toEqual(["Mods/changed.package", "Mods/unchanged.package"]);
  });

  it("reads a ZIP64 source and writes a classic delta from it", async () => {
    const oldZip = stored(OLD);
    const newZip = stored(NEW, { zip64: true });
    const { file } = await delta(oldZip, newZip);
    expect(() => testArchive(file)).not.toThrow();
    const rebuilt = await applied(oldZip.file, file);
    const expected = await unpack(newZip.file);
    for (const [name, bytes] of expected) expect(rebuilt.get(name)!.equals(bytes), name).toBe(true);
  });

  it("refuses plainly what would need ZIP64", () => {
    const entry = (name: string): WrittenEntry => ({
      path: name,
      method: 0,
      flags: 0,
      crc32: 0,
      compressedSize: 0,
      uncompressedSize: 0,
      dosTime: 0,
      dosDate: 33,
      versionMadeBy: 20,
      versionNeeded: 10,
      externalAttributes: 0,
      data: { bytes: Buffer.alloc(0) },
    });
    expect(() => zipLayout(Array.from({ length: 0xffff }, (_, index) => entry(`f${index}`)))).toThrow(NeedsZip64Error);
    expect(() => zipLayout([{ ...entry("huge"), compressedSize: 2 ** 32, uncompressedSize: 2 ** 32, data: { start: 0, length: 2 ** 32 } }])).toThrow(
      /would need ZIP64/,
    );
  });

  it("serves any byte range of the delta as the same bytes as the whole", async () => {
    const oldZip = stored(OLD);
    const newZip = stored(NEW);
    const { layout } = await deltaLayout(store, newZip.key, await listZipEntries(store, oldZip.key), new Uint8Array());
    const whole = await collect(readLayout(layout, (range) => store.read(newZip.key, range)));
    for (const [start, end] of [
      [0, 10],
      [29, 400],
      [100, whole.length - 1],
      [whole.length - 30, whole.length - 1],
    ] as const) {
      const part = await collect(readLayout(layout, (range) => store.read(newZip.key, range), { start, end }));
      expect(part.equals(whole.subarray(start, end + 1))).toBe(true);
    }
  });

  it("plans by path, size and CRC-32", async () => {
    const directory = await readZipDirectory(store, stored(NEW).key);
    const plan = planDelta(
      directory.map((entry) => ({ path: entry.path, size: entry.size, crc32: entry.crc32 })),
      directory,
    );
    expect(plan).toEqual({ changed: [], removed: [] });
  });
});
