// The parts of a resumable upload on the local driver: each part is a file
// DATA_DIR/uploads/<upload id>/<part number>, written under a temporary name and renamed once
// whole, so a part cut off by a dropped connection is never counted as arrived.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomBytes } from "node:crypto";
import { env } from "~/env.server";

/** One part that has arrived whole. */
export type LocalPart = { partNumber: number; size: number; lastModified: Date };

const UPLOAD_ID = /^[a-z0-9]{16,64}$/;

/** The folder of an upload's parts (ids are ours, checked anyway: no path is ever taken from a request). */
export function localUploadDir(uploadId: string): string {
  if (!UPLOAD_ID.test(uploadId)) throw new Error("Invalid upload id");
  return path.resolve(env().DATA_DIR, "uploads", uploadId);
}

/**
 * Writes part `partNumber` from `body`; answers its size. When the body breaks off, or holds more
 * than `maxBytes`, the temporary file is removed and the error passed on.
 */
export async function writeLocalPart(uploadId: string, partNumber: number, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<number> {
  const dir = localUploadDir(uploadId);
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, String(partNumber));
  const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
  let size = 0;
  async function* counted() {
    const chunks = body[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } catch (error) {
        throw new PartCutOffError(error);
      }
      if (next.done) return;
      size += next.value.byteLength;
      if (size > maxBytes) throw new PartTooLargeError();
      yield next.value;
    }
  }
  try {
    await pipeline(Readable.from(counted()), createWriteStream(temporary));
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return size;
}

export class PartTooLargeError extends Error {
  constructor() {
    super("The part is larger than the upload's part size.");
  }
}

/** The part's body broke off before its end (a dropped connection): the sender's fault, not the disk's. */
export class PartCutOffError extends Error {
  constructor(cause: unknown) {
    super("The part was cut off.", { cause });
  }
}

/** The parts that arrived whole, in part order. */
export async function listLocalParts(uploadId: string): Promise<LocalPart[]> {
  const dir = localUploadDir(uploadId);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return [];
    throw error;
  }
  const parts: LocalPart[] = [];
  for (const name of names) {
    if (!/^[1-9][0-9]*$/.test(name)) continue;
    const info = await stat(path.join(dir, name));
    parts.push({ partNumber: Number(name), size: info.size, lastModified: info.mtime });
  }
  return parts.sort((a, b) => a.partNumber - b.partNumber);
}

/** The parts 1..count one after another, as one stream (never whole in memory). */
export function readLocalParts(uploadId: string, count: number): AsyncIterable<Uint8Array> {
  const dir = localUploadDir(uploadId);
  return (async function* () {
    for (let partNumber = 1; partNumber <= count; partNumber++) {
      for await (const chunk of createReadStream(path.join(dir, String(partNumber)), { highWaterMark: 512 * 1024 })) yield chunk as Buffer;
    }
  })();
}

/** Removes one part (it arrived with the wrong size). */
export async function deleteLocalPart(uploadId: string, partNumber: number): Promise<void> {
  await rm(path.join(localUploadDir(uploadId), String(partNumber)), { force: true });
}

/** Removes an upload's parts (completed, aborted or abandoned). */
export async function deleteLocalParts(uploadId: string): Promise<void> {
  await rm(localUploadDir(uploadId), { recursive: true, force: true });
}
