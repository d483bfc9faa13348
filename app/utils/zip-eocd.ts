// The end of a ZIP archive, read the same way on the server and in the browser (plain
// Uint8Array, no Buffer): where its end-of-central-directory (EOCD) record sits, its comment,
// and the "content hash" canonical form (docs/glossary.md): the archive without that comment.
// A trace stamp only rewrites the EOCD comment, so a stamped copy has the stored file's content hash.

export const EOCD_SIGNATURE = 0x06054b50;
export const EOCD_FIXED_BYTES = 22;
export const MAX_COMMENT_BYTES = 0xffff;
/** The most bytes from the end of a ZIP that can hold its EOCD record and comment. */
export const MAX_TAIL_BYTES = EOCD_FIXED_BYTES + MAX_COMMENT_BYTES;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;

export type EocdInfo = {
  /** Offset of the EOCD record in the whole file. */
  offset: number;
  commentLength: number;
  comment: Uint8Array;
  /** A ZIP64 locator sits right before the EOCD (kept as is when stamping). */
  zip64: boolean;
};

function u32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);
}

function u16(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(at, true);
}

/**
 * Finds the EOCD record in the last bytes of a file (`tail`, the file's final `tail.length`
 * bytes; `fileSize` the whole size). The record whose comment ends exactly at the end of the
 * file wins, searching backwards, so a comment that happens to contain the signature is not
 * mistaken for the record. Null: not a ZIP we can read the end of.
 */
export function findEocd(tail: Uint8Array, fileSize: number): EocdInfo | null {
  const tailStart = fileSize - tail.length;
  for (let at = tail.length - EOCD_FIXED_BYTES; at >= 0; at--) {
    // The first two bytes ("PK") rule out nearly every position without a DataView read.
    if (tail[at] !== 0x50 || tail[at + 1] !== 0x4b || u32(tail, at) !== EOCD_SIGNATURE) continue;
    const commentLength = u16(tail, at + 20);
    if (at + EOCD_FIXED_BYTES + commentLength !== tail.length) continue;
    const zip64 = at >= ZIP64_LOCATOR_BYTES && u32(tail, at - ZIP64_LOCATOR_BYTES) === ZIP64_LOCATOR_SIGNATURE;
    return { offset: tailStart + at, commentLength, comment: Uint8Array.prototype.slice.call(tail, at + EOCD_FIXED_BYTES), zip64 };
  }
  return null;
}

/** The EOCD record of `tail` with its comment replaced (fixed part copied, length rewritten). */
export function eocdWithComment(tail: Uint8Array, info: EocdInfo, fileSize: number, comment: Uint8Array): Uint8Array {
  if (comment.length > MAX_COMMENT_BYTES) throw new Error("ZIP comment too long");
  const at = info.offset - (fileSize - tail.length);
  const record = new Uint8Array(EOCD_FIXED_BYTES + comment.length);
  record.set(tail.subarray(at, at + EOCD_FIXED_BYTES));
  new DataView(record.buffer).setUint16(20, comment.length, true);
  record.set(comment, EOCD_FIXED_BYTES);
  return record;
}

/**
 * The bytes that stand for `tail` in the content hash: for a ZIP, the tail up to its EOCD with
 * the comment dropped and the comment length zeroed; for anything else, the tail unchanged.
 * Everything before the tail is hashed as it is.
 */
export function canonicalTail(tail: Uint8Array, fileSize: number): Uint8Array {
  const info = findEocd(tail, fileSize);
  if (!info) return tail;
  const end = info.offset - (fileSize - tail.length) + EOCD_FIXED_BYTES;
  // A copy (Buffer#slice would share memory and the caller's bytes would change).
  const canonical = Uint8Array.prototype.slice.call(tail, 0, end);
  new DataView(canonical.buffer).setUint16(end - 2, 0, true);
  return canonical;
}

const TRACE_PREFIX = "Leak trace ";

/**
 * The comment a paid download carries, readable by anyone: the downloader's leak-trace number,
 * then `-` and the tag the server computed for it (app/utils/trace-stamp.server.ts). Without a
 * tag it is the older, unsigned form, which is still read.
 */
export function traceComment(number: number, tag?: string): Uint8Array {
  return new TextEncoder().encode(`${TRACE_PREFIX}${number}${tag ? `-${tag}` : ""}`);
}

/** A stamp as written in a comment or typed into the code search: the number and its tag, if any. */
export type TraceStamp = { number: number; tag: string | null };

/** The leak-trace stamp in a ZIP's tail (the tag unchecked), or null when it carries none. */
export function traceStampOf(tail: Uint8Array, fileSize: number): TraceStamp | null {
  const info = findEocd(tail, fileSize);
  if (!info) return null;
  const match = /Leak trace (\d{1,10})(?:-([0-9A-Za-z]{1,64}))?/.exec(new TextDecoder().decode(info.comment));
  return match ? { number: Number(match[1]), tag: match[2] ?? null } : null;
}

/** The leak-trace number in a ZIP's tail, or null when it carries none (its tag is not checked). */
export function traceNumberOf(tail: Uint8Array, fileSize: number): number | null {
  return traceStampOf(tail, fileSize)?.number ?? null;
}
