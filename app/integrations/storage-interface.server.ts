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

/** What a caller answers when storage itself fails (docs/messages.md): the file is not at fault. */
export const STORAGE_UNAVAILABLE_MESSAGE = "File storage is unavailable. Please try again in a few minutes.";
/** The `Retry-After` of that answer: storage outages (a full disk, S3 down) take minutes to mend. */
export const STORAGE_RETRY_AFTER_SECONDS = 60;

/** Error codes of a disk or a storage service that cannot serve (full, read-only, unreachable), never of a request. */
const OUTAGE_CODES = new Set([
  "ENOSPC",
  "EDQUOT",
  "EROFS",
  "EACCES",
  "EPERM",
  "EIO",
  "EMFILE",
  "ENFILE",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);
/** S3 error names that say the service, not the request, failed. */
const OUTAGE_NAMES = new Set(["TimeoutError", "ServiceUnavailable", "SlowDown", "InternalError", "RequestTimeout", "RequestTimeTooSkewed"]);

/**
 * Whether an error of a storage call says the storage is down or full (a local disk that is full
 * or not writable, an S3 endpoint that refuses connections or answers 5xx), looking through
 * `cause` and AggregateError's `errors`. A caller answers such a failure 503, never 4xx.
 */
export function isStorageOutage(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const { code, name, $metadata, cause, errors } = error as {
    code?: unknown;
    name?: unknown;
    $metadata?: { httpStatusCode?: number };
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string" && OUTAGE_CODES.has(code)) return true;
  if (typeof name === "string" && OUTAGE_NAMES.has(name)) return true;
  if (($metadata?.httpStatusCode ?? 0) >= 500) return true;
  if (Array.isArray(errors) && errors.some((inner) => isStorageOutage(inner, depth + 1))) return true;
  return isStorageOutage(cause, depth + 1);
}
