// A delta between two versions of a ZIP (docs/api.md#delta-updates): the current archive's
// entries that are new or changed since an older version's list of entries, copied raw (their
// compressed bytes as stored, never recompressed), plus `.delta/removed.txt` naming the paths
// gone since. Unpacked over the older version's files with the removed paths deleted, it gives
// the current version's files exactly; a rename is a removal plus an addition.
import { crc32 } from "node:zlib";
import type { Storage } from "~/integrations/storage.server";
import { readZipDirectory, type ZipDirectoryEntry, type ZipEntry } from "~/integrations/zip.server";
import { dataOffsetOf, LOCAL_HEADER_FIXED_BYTES, zipLayout, type WrittenEntry, type ZipLayout } from "~/integrations/zip-writer.server";

/** The entry of a delta that lists the removed paths, one per line. */
export const REMOVED_LIST_PATH = ".delta/removed.txt";
const DELTA_FOLDER = ".delta/";
/** Bit 0 of an entry's flags: encrypted (its data cannot be checked or copied meaningfully). */
const ENCRYPTED_FLAG = 0x0001;

/** No delta can be written for this archive (the message says why); the whole file still downloads. */
export class DeltaNotPossibleError extends Error {}

export type DeltaPlan = { changed: ZipDirectoryEntry[]; removed: string[] };

/** What changed from `from` (an older version's entries) to `current`: same path, size and CRC-32 is unchanged. */
export function planDelta(from: ZipEntry[], current: ZipDirectoryEntry[]): DeltaPlan {
  const before = new Map(from.map((entry) => [entry.path, entry]));
  const now = new Set(current.map((entry) => entry.path));
  const changed = current.filter((entry) => {
    const old = before.get(entry.path);
    return !old || old.size !== entry.size || old.crc32 >>> 0 !== entry.crc32 >>> 0;
  });
  const removed = from.map((entry) => entry.path).filter((path) => !now.has(path));
  return { changed, removed };
}

/** Reads `length` bytes of `key` from `start`. */
async function readBytes(store: Storage, key: string, start: number, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.read(key, { start, end: start + length - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const FROM_DOS_EPOCH = { time: 0, date: ((2000 - 1980) << 9) | (1 << 5) | 1 };

/**
 * The layout of the delta from `from` to the stored ZIP `key`, its end record carrying
 * `comment`. DeltaNotPossibleError for an encrypted entry or a path under `.delta/`;
 * NeedsZip64Error when the delta itself would need ZIP64 (the source may use it).
 */
export async function deltaLayout(store: Storage, key: string, from: ZipEntry[], comment: Uint8Array): Promise<{ layout: ZipLayout; plan: DeltaPlan }> {
  const current = await readZipDirectory(store, key);
  if (current.some((entry) => entry.path.startsWith(DELTA_FOLDER)))
    throw new DeltaNotPossibleError(`The archive holds files under ${DELTA_FOLDER}, where a delta lists its removals.`);
  const plan = planDelta(from, current);
  const entries: WrittenEntry[] = [];
  for (const entry of plan.changed) {
    if (entry.flags & ENCRYPTED_FLAG) throw new DeltaNotPossibleError(`${entry.path} is encrypted.`);
    const header = await readBytes(store, key, entry.localHeaderOffset, LOCAL_HEADER_FIXED_BYTES);
    const start = dataOffsetOf(entry.localHeaderOffset, header);
    entries.push({ ...entry, uncompressedSize: entry.size, data: { start, length: entry.compressedSize } });
  }
  const list = Buffer.from(plan.removed.map((path) => `${path}\n`).join(""), "utf8");
  entries.push({
    path: REMOVED_LIST_PATH,
    method: 0,
    flags: 0,
    crc32: crc32(list),
    compressedSize: list.length,
    uncompressedSize: list.length,
    dosTime: FROM_DOS_EPOCH.time,
    dosDate: FROM_DOS_EPOCH.date,
    versionMadeBy: 20,
    versionNeeded: 10,
    externalAttributes: 0,
    data: { bytes: list },
  });
  return { layout: zipLayout(entries, comment), plan };
}
