// Reads what a stored ZIP holds (path, size, CRC-32 of each file) from its central directory
// only, through ranged reads of the storage (a local file or S3 GET with Range), so a 2 GB
// archive costs a few small reads. yauzl does the parsing, ZIP64 included.
import { Readable } from "node:stream";
import yauzl from "yauzl";
import { isStorageOutage, type Storage } from "~/integrations/storage.server";

export type ZipEntry = { path: string; size: number; crc32: number };

/** The archive cannot be read: corrupt, truncated or not a ZIP. The message says so plainly. */
export class UnreadableZipError extends Error {}

/** The archive lists more entries than the caller allows; none of them was read. */
export class TooManyZipEntriesError extends Error {
  constructor(
    readonly entryCount: number,
    readonly maxEntries: number,
  ) {
    super(`The archive lists ${entryCount} entries, more than ${maxEntries}.`);
  }
}

/** yauzl's source of bytes: ranges of one stored object. */
class StoredObjectReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly store: Storage,
    private readonly key: string,
  ) {
    super();
  }

  // yauzl asks for [start, end) and expects a stream; storage ranges are inclusive.
  override _readStreamForRange(start: number, end: number): Readable {
    if (end <= start) return Readable.from([]);
    const out = new Readable({ read() {} });
    this.store.read(this.key, { start, end: end - 1 }).then(
      (source) => {
        source.on("data", (chunk: Buffer) => out.push(chunk));
        source.once("end", () => out.push(null));
        source.once("error", (error) => out.destroy(error));
      },
      (error: unknown) => out.destroy(error as Error),
    );
    return out;
  }
}

function openArchive(reader: yauzl.RandomAccessReader, size: number): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromRandomAccessReader(reader, size, { lazyEntries: true, autoClose: false, decodeStrings: true }, (error, zip) => {
      if (error || !zip) reject(error ?? new Error("no archive"));
      else resolve(zip);
    });
  });
}

function readEntries(zip: yauzl.ZipFile): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: ZipEntry[] = [];
    zip.on("entry", (entry: yauzl.Entry) => {
      // Folders carry no content: the changelog speaks of files.
      if (!entry.fileName.endsWith("/")) entries.push({ path: entry.fileName, size: entry.uncompressedSize, crc32: entry.crc32 });
      zip.readEntry();
    });
    zip.once("end", () => resolve(entries));
    zip.once("error", reject);
    zip.readEntry();
  });
}

/**
 * The files of a stored ZIP, in central-directory order; UnreadableZipError when it is not one.
 * With `maxEntries`, an archive whose end record counts more entries (folders included) is
 * refused with TooManyZipEntriesError before any entry is read.
 */
export async function listZipEntries(store: Storage, key: string, { maxEntries = Infinity }: { maxEntries?: number } = {}): Promise<ZipEntry[]> {
  const info = await store.stat(key);
  if (!info) throw new UnreadableZipError("The archive is missing from storage.");
  const reader = new StoredObjectReader(store, key);
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openArchive(reader, info.size);
    if (zip.entryCount > maxEntries) throw new TooManyZipEntriesError(zip.entryCount, maxEntries);
    return await readEntries(zip);
  } catch (error) {
    if (error instanceof TooManyZipEntriesError) throw error;
    throw new UnreadableZipError(`This ZIP archive is corrupt or truncated and cannot be read (${(error as Error).message}).`);
  } finally {
    zip?.close();
    reader.close(() => undefined);
  }
}

/** An entry of a ZIP's central directory, with what copying its data raw needs. */
export type ZipDirectoryEntry = ZipEntry & {
  method: number;
  flags: number;
  compressedSize: number;
  dosTime: number;
  dosDate: number;
  versionMadeBy: number;
  versionNeeded: number;
  externalAttributes: number;
  localHeaderOffset: number;
};

function readDirectory(zip: yauzl.ZipFile): Promise<ZipDirectoryEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: ZipDirectoryEntry[] = [];
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith("/")) {
        entries.push({
          path: entry.fileName,
          size: entry.uncompressedSize,
          crc32: entry.crc32,
          method: entry.compressionMethod,
          flags: entry.generalPurposeBitFlag,
          compressedSize: entry.compressedSize,
          dosTime: entry.lastModFileTime,
          dosDate: entry.lastModFileDate,
          versionMadeBy: entry.versionMadeBy,
          versionNeeded: entry.versionNeededToExtract,
          externalAttributes: entry.externalFileAttributes,
          localHeaderOffset: entry.relativeOffsetOfLocalHeader,
        });
      }
      zip.readEntry();
    });
    zip.once("end", () => resolve(entries));
    zip.once("error", reject);
    zip.readEntry();
  });
}

/**
 * The files of a stored ZIP with their compression facts and local header offsets (ZIP64
 * sources read too), in central-directory order; UnreadableZipError when it is not a ZIP.
 */
export async function readZipDirectory(store: Storage, key: string): Promise<ZipDirectoryEntry[]> {
  const info = await store.stat(key);
  if (!info) throw new UnreadableZipError("The archive is missing from storage.");
  const reader = new StoredObjectReader(store, key);
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openArchive(reader, info.size);
    return await readDirectory(zip);
  } catch (error) {
    // Storage that is down is not a broken archive.
    if (isStorageOutage(error)) throw error;
    throw new UnreadableZipError(`This ZIP archive is corrupt or truncated and cannot be read (${(error as Error).message}).`);
  } finally {
    zip?.close();
    reader.close(() => undefined);
  }
}

/** Whether a file name or its first bytes say ZIP (the entry list is read only for those). */
export function looksLikeZip(fileName: string, head?: Uint8Array): boolean {
  if (head && head.length >= 4) return head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05) && (head[3] === 0x04 || head[3] === 0x06);
  return /\.zip$/i.test(fileName);
}

/** The named entry of a stored ZIP, read whole when it holds at most `maxBytes`; null when it is absent or larger. */
export async function readZipEntry(store: Storage, key: string, path: string, maxBytes: number): Promise<Buffer | null> {
  const info = await store.stat(key);
  if (!info) throw new UnreadableZipError("The archive is missing from storage.");
  const reader = new StoredObjectReader(store, key);
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openArchive(reader, info.size);
    const opened = zip;
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      opened.on("entry", (candidate: yauzl.Entry) => {
        if (candidate.fileName === path) resolve(candidate);
        else opened.readEntry();
      });
      opened.once("end", () => resolve(null));
      opened.once("error", reject);
      opened.readEntry();
    });
    if (!entry || entry.uncompressedSize > maxBytes) return null;
    const stream = await new Promise<Readable>((resolve, reject) =>
      opened.openReadStream(entry, (error, data) => (error || !data ? reject(error ?? new Error("no data")) : resolve(data))),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (error) {
    if (isStorageOutage(error)) throw error;
    throw new UnreadableZipError(`This ZIP archive is corrupt or truncated and cannot be read (${(error as Error).message}).`);
  } finally {
    zip?.close();
    reader.close(() => undefined);
  }
}
