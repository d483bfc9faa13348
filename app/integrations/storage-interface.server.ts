// The storage interface that every implementation meets (local folder, S3) and the key rule they
// all enforce. Its own module so implementations depend on it, not on the factory that picks one
// (storage.server.ts), which imports them.
import type { Readable } from "node:stream";

export type ByteRange = { start: number; end: number };

export type StoredObject = { size: number; etag: string; lastModified: Date };

export interface Storage {
  /** Streams `body` into `key`, replacing what was there; answers the stored size. */
  put(key: string, body: Readable | Buffer, contentType?: string): Promise<{ size: number }>;
  /** Size and version of an object, or null when there is none. */
  stat(key: string): Promise<StoredObject | null>;
  /** A stream of the object (or of an inclusive byte range of it). */
  read(key: string, range?: ByteRange): Promise<Readable>;
  delete(key: string): Promise<void>;
}

const KEY_PATTERN = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/** Rejects anything that is not a plain relative key (no `..`, no absolute paths, no backslashes). */
export function assertSafeKey(key: string): string {
  if (!KEY_PATTERN.test(key) || key.split("/").some((part) => part === "." || part === "..") || key.length > 512) {
    throw new Error("Invalid storage key");
  }
  return key;
}

export function isSafeKey(key: string): boolean {
  try {
    assertSafeKey(key);
    return true;
  } catch {
    return false;
  }
}
