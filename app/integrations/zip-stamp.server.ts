// Trace stamping of a stored ZIP without rewriting it: the stamped file is the stored file up
// to its EOCD record (prefix), then a new EOCD record whose comment names the downloader. Any
// byte range of that is served from one stored range read plus a slice of the new record, so
// Range, resume and an exact Content-Length work as for the stored file itself.
import { createHash, type Hash } from "node:crypto";
import { Readable } from "node:stream";
import type { ByteRange, Storage, StoredObject } from "~/integrations/storage.server";
import { EOCD_FIXED_BYTES, eocdWithComment, findEocd, MAX_TAIL_BYTES } from "~/utils/zip-eocd";

export type StampLayout = { prefixLength: number; record: Buffer; size: number };

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Where the seam of a stamped copy falls, or null when the file cannot be stamped correctly
 * (no EOCD record ending the file, or ZIP64 markers without the ZIP64 locator): such a file is
 * served as stored.
 */
export async function stampLayout(store: Storage, key: string, size: number, comment: Uint8Array): Promise<StampLayout | null> {
  const tail = await readTail(store, key, size);
  return tail ? layoutFromTail(tail, size, comment) : null;
}

/** The last MAX_TAIL_BYTES of a stored file (all of a smaller one), or null when it is too short to be a ZIP. */
async function readTail(store: Storage, key: string, size: number): Promise<Buffer | null> {
  if (size < EOCD_FIXED_BYTES) return null;
  const tailStart = Math.max(0, size - MAX_TAIL_BYTES);
  const tail = await readAll(await store.read(key, { start: tailStart, end: size - 1 }));
  return tail.length === size - tailStart ? tail : null;
}

/** The stamp's seam from the file's tail (see `stampLayout`). */
function layoutFromTail(tail: Buffer, size: number, comment: Uint8Array): StampLayout | null {
  const tailStart = size - tail.length;
  const info = findEocd(tail, size);
  if (!info) return null;
  const at = info.offset - tailStart;
  // 0xFFFF / 0xFFFFFFFF in the EOCD mean "see the ZIP64 record": without its locator the
  // archive is already broken, and a stamp would hide that.
  const saturated = tail.readUInt16LE(at + 8) === 0xffff || tail.readUInt32LE(at + 12) === 0xffffffff || tail.readUInt32LE(at + 16) === 0xffffffff;
  if (saturated && !info.zip64) return null;
  const record = Buffer.from(eocdWithComment(tail, info, size, comment));
  return { prefixLength: info.offset, record, size: info.offset + record.length };
}

/** The bytes `range` (inclusive) of the stamped copy, reading only the stored bytes it needs. */
export function readStamped(store: Storage, key: string, layout: StampLayout, range: ByteRange = { start: 0, end: layout.size - 1 }): Readable {
  async function* bytes() {
    if (range.start < layout.prefixLength) {
      const stored = await store.read(key, { start: range.start, end: Math.min(range.end, layout.prefixLength - 1) });
      for await (const chunk of stored) yield chunk as Buffer;
    }
    if (range.end >= layout.prefixLength) {
      yield layout.record.subarray(Math.max(0, range.start - layout.prefixLength), range.end - layout.prefixLength + 1);
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

/**
 * A read-only view of `store` in which `key` reads as its stamped copy, with its own size and
 * an ETag that tells copies of different downloaders apart (a resumed download with If-Range
 * of another copy starts over). Null when the file cannot be stamped.
 */
export async function stampedView(store: Storage, key: string, comment: Uint8Array, tag: string): Promise<Storage | null> {
  const info = await store.stat(key);
  if (!info) return null;
  const layout = await stampLayout(store, key, info.size, comment);
  if (!layout) return null;
  const stamped: StoredObject = {
    size: layout.size,
    lastModified: info.lastModified,
    etag: info.etag.endsWith('"') ? `${info.etag.slice(0, -1)}-${tag}"` : `"${info.etag}-${tag}"`,
  };
  return {
    put: () => Promise.reject(new Error("A stamped view is read-only")),
    delete: () => Promise.reject(new Error("A stamped view is read-only")),
    stat: async (asked) => (asked === key ? stamped : store.stat(asked)),
    read: async (asked, range) => (asked === key ? readStamped(store, key, layout, range) : store.read(asked, range)),
  };
}

/** A stored file's SHA-256 state over the bytes every stamped copy shares (all before its end record), with its tail. */
type StampPrefix = { size: number; tail: Buffer; prefixLength: number; hash: Hash } | null;

/** Prefix states by storage key and stored hash (a version's bytes never change), newest last; a few dozen at most. */
const prefixes = new Map<string, Promise<StampPrefix>>();
const MAX_PREFIXES = 64;

async function stampPrefix(store: Storage, key: string, size: number): Promise<StampPrefix> {
  const tail = await readTail(store, key, size);
  // Any comment gives the seam; the shared bytes end there whatever the stamp says.
  const layout = tail ? layoutFromTail(tail, size, new Uint8Array()) : null;
  if (!tail || !layout) return null;
  const hash = createHash("sha256");
  if (layout.prefixLength > 0) for await (const chunk of await store.read(key, { start: 0, end: layout.prefixLength - 1 })) hash.update(chunk as Buffer);
  return { size, tail, prefixLength: layout.prefixLength, hash };
}

/**
 * The size and SHA-256 of the copy of a stored ZIP that a download stamped with `comment`
 * serves (what `stampedView` reads), without reading the file again for each comment: the
 * shared bytes are hashed once per file and process. Null when the file cannot be stamped
 * (it is then served as stored). `cacheTag`: what tells this file's bytes from an earlier
 * file's under the same key (the version's stored SHA-256).
 */
export async function stampedDigest(
  store: Storage,
  key: string,
  size: number,
  comment: Uint8Array,
  cacheTag: string,
): Promise<{ size: number; sha256: string } | null> {
  const id = `${key}\u0000${cacheTag}\u0000${size}`;
  let pending = prefixes.get(id);
  if (!pending) {
    pending = stampPrefix(store, key, size);
    prefixes.set(id, pending);
    pending.catch(() => prefixes.delete(id));
    if (prefixes.size > MAX_PREFIXES) prefixes.delete(prefixes.keys().next().value!);
  }
  const prefix = await pending;
  if (!prefix) return null;
  const layout = layoutFromTail(prefix.tail, prefix.size, comment);
  if (!layout) return null;
  return { size: layout.size, sha256: prefix.hash.copy().update(layout.record).digest("hex") };
}
