// A small ZIP writer that never compresses: each entry's data is either bytes given here or a
// byte range of a stored ZIP copied raw (already compressed, as the source wrote it). The
// archive is described as a list of segments (new bytes, stored ranges), so any byte range of
// it is served from the stored object without building the whole file: Range, resume and an
// exact Content-Length work as for a stored file. Only the classic format is written: an
// archive that would need ZIP64 (4 GiB sizes or offsets, 65535 entries) is refused.
import { Readable } from "node:stream";
import type { ByteRange, Storage, StoredObject } from "~/integrations/storage-interface.server";

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const END_SIGNATURE = 0x06054b50;
const LOCAL_HEADER_BYTES = 30;
const CENTRAL_HEADER_BYTES = 46;
const END_BYTES = 22;
const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;
/** General purpose flag bits: the sizes follow the data (cleared: this writer puts them in the header), UTF-8 names. */
const DATA_DESCRIPTOR_FLAG = 0x0008;
const UTF8_FLAG = 0x0800;

/** Where an entry's (compressed) data comes from: bytes in hand, or `length` bytes of the source from `start`. */
export type EntryData = { bytes: Buffer } | { start: number; length: number };

/** One entry as it is written: the central directory's facts about it, and its data. */
export type WrittenEntry = {
  path: string;
  /** 0 stored, 8 deflated, ...: the data is copied as it is, never recompressed. */
  method: number;
  /** The source's flags; the data-descriptor bit is cleared and the UTF-8 bit set. */
  flags: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  dosTime: number;
  dosDate: number;
  versionMadeBy: number;
  versionNeeded: number;
  externalAttributes: number;
  data: EntryData;
};

/** A piece of the written archive: new bytes, or an inclusive range of the source object. */
export type Segment = { bytes: Buffer } | { start: number; length: number };

export type ZipLayout = { segments: Segment[]; size: number };

/** The archive would need ZIP64, which this writer does not write. */
export class NeedsZip64Error extends Error {
  constructor(what: string) {
    super(`The archive would need ZIP64 (${what}), which is not supported here.`);
  }
}

function localHeader(entry: WrittenEntry, name: Buffer): Buffer {
  const header = Buffer.alloc(LOCAL_HEADER_BYTES + name.length);
  header.writeUInt32LE(LOCAL_HEADER_SIGNATURE, 0);
  header.writeUInt16LE(entry.versionNeeded, 4);
  header.writeUInt16LE(flagsOf(entry), 6);
  header.writeUInt16LE(entry.method, 8);
  header.writeUInt16LE(entry.dosTime, 10);
  header.writeUInt16LE(entry.dosDate, 12);
  header.writeUInt32LE(entry.crc32 >>> 0, 14);
  header.writeUInt32LE(entry.compressedSize, 18);
  header.writeUInt32LE(entry.uncompressedSize, 22);
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(0, 28);
  name.copy(header, LOCAL_HEADER_BYTES);
  return header;
}

function centralHeader(entry: WrittenEntry, name: Buffer, offset: number): Buffer {
  const header = Buffer.alloc(CENTRAL_HEADER_BYTES + name.length);
  header.writeUInt32LE(CENTRAL_HEADER_SIGNATURE, 0);
  header.writeUInt16LE(entry.versionMadeBy, 4);
  header.writeUInt16LE(entry.versionNeeded, 6);
  header.writeUInt16LE(flagsOf(entry), 8);
  header.writeUInt16LE(entry.method, 10);
  header.writeUInt16LE(entry.dosTime, 12);
  header.writeUInt16LE(entry.dosDate, 14);
  header.writeUInt32LE(entry.crc32 >>> 0, 16);
  header.writeUInt32LE(entry.compressedSize, 20);
  header.writeUInt32LE(entry.uncompressedSize, 24);
  header.writeUInt16LE(name.length, 28);
  // Extra field, comment, disk number start, internal attributes: all zero.
  header.writeUInt32LE(entry.externalAttributes >>> 0, 38);
  header.writeUInt32LE(offset, 42);
  name.copy(header, CENTRAL_HEADER_BYTES);
  return header;
}

function flagsOf(entry: WrittenEntry): number {
  return ((entry.flags & ~DATA_DESCRIPTOR_FLAG) | UTF8_FLAG) & MAX_16;
}

function endRecord(count: number, directorySize: number, directoryOffset: number, comment: Uint8Array): Buffer {
  const record = Buffer.alloc(END_BYTES + comment.length);
  record.writeUInt32LE(END_SIGNATURE, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(directorySize, 12);
  record.writeUInt32LE(directoryOffset, 16);
  record.writeUInt16LE(comment.length, 20);
  Buffer.from(comment).copy(record, END_BYTES);
  return record;
}

/**
 * The layout of a ZIP holding `entries` in order, each a local header then its data, then the
 * central directory and the end record with `comment`. NeedsZip64Error when a size, an offset
 * or the count does not fit the classic format.
 */
export function zipLayout(entries: WrittenEntry[], comment: Uint8Array = new Uint8Array()): ZipLayout {
  if (entries.length >= MAX_16) throw new NeedsZip64Error(`${entries.length} entries`);
  if (comment.length > MAX_16) throw new Error("ZIP comment too long");
  const segments: Segment[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    if (entry.compressedSize >= MAX_32 || entry.uncompressedSize >= MAX_32) throw new NeedsZip64Error(`${entry.path} is 4 GiB or more`);
    if (offset >= MAX_32) throw new NeedsZip64Error("4 GiB of entries");
    const dataLength = "bytes" in entry.data ? entry.data.bytes.length : entry.data.length;
    if (dataLength !== entry.compressedSize) throw new Error(`The data of ${entry.path} is not its compressed size`);
    const name = Buffer.from(entry.path, "utf8");
    if (name.length > MAX_16) throw new Error(`The name ${entry.path.slice(0, 40)}… is too long`);
    const header = localHeader(entry, name);
    directory.push(centralHeader(entry, name, offset));
    segments.push({ bytes: header }, entry.data);
    offset += header.length + dataLength;
  }
  const central = Buffer.concat(directory);
  if (offset >= MAX_32 || offset + central.length >= MAX_32) throw new NeedsZip64Error("4 GiB of entries");
  segments.push({ bytes: Buffer.concat([central, endRecord(entries.length, central.length, offset, comment)]) });
  return {
    segments: segments.filter((segment) => ("bytes" in segment ? segment.bytes.length : segment.length) > 0),
    size: offset + central.length + END_BYTES + comment.length,
  };
}

/** The bytes `range` (inclusive) of a laid-out archive, reading only the source ranges it covers. */
export function readLayout(
  layout: ZipLayout,
  readSource: (range: ByteRange) => Promise<Readable>,
  range: ByteRange = { start: 0, end: layout.size - 1 },
): Readable {
  async function* bytes() {
    let at = 0;
    for (const segment of layout.segments) {
      const length = "bytes" in segment ? segment.bytes.length : segment.length;
      const from = Math.max(range.start, at);
      const to = Math.min(range.end, at + length - 1);
      if (from <= to) {
        if ("bytes" in segment) yield segment.bytes.subarray(from - at, to - at + 1);
        else for await (const chunk of await readSource({ start: segment.start + from - at, end: segment.start + to - at })) yield chunk as Buffer;
      }
      at += length;
      if (at > range.end) break;
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

/**
 * A read-only storage in which `key` reads as the laid-out archive (its data ranges read from
 * `sourceKey` of `store`), with its own ETag; every other key is absent.
 */
export function layoutView(store: Storage, sourceKey: string, key: string, layout: ZipLayout, info: Omit<StoredObject, "size">): Storage {
  const object: StoredObject = { ...info, size: layout.size };
  return {
    put: () => Promise.reject(new Error("A written archive is read-only")),
    delete: () => Promise.reject(new Error("A written archive is read-only")),
    stat: async (asked) => (asked === key ? object : null),
    read: async (asked, range) => {
      if (asked !== key) throw new Error("No such object");
      return readLayout(layout, (part) => store.read(sourceKey, part), range);
    },
  };
}

/** Where an entry's data starts, from its local header's first 30 bytes (the name and extra field lengths vary). */
export function dataOffsetOf(localHeaderOffset: number, header: Buffer): number {
  if (header.length < LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw new Error("No local header where the directory says");
  return localHeaderOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
}

export const LOCAL_HEADER_FIXED_BYTES = LOCAL_HEADER_BYTES;
