// Streams a stored object as an HTTP response, with ETag/Range support.
import { Readable } from "node:stream";
import { createReadableStreamFromReadable } from "@remix-run/node";
import parseRangeHeader from "range-parser";
import { isStorageOutage, STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE, storage, type Storage } from "~/integrations/storage.server";
import { downloadBytes, downloadsInFlight } from "~/metrics.server";
import { DomainError } from "~/utils/errors";
import { stampedView } from "~/integrations/zip-stamp.server";
import { traceTag } from "~/utils/trace-stamp.server";
import { traceComment } from "~/utils/zip-eocd";
import { errorFields, log } from "~/logger.server";

export type ServeOptions = {
  contentType: string;
  cacheControl: string;
  fileName?: string;
  /**
   * Called once the response has written every byte of its body (the whole file, or the one
   * range asked for) but the last, and asks for that one (not on aborts, HEAD, 304 or 416). The
   * last byte waits for its promise, so a client that has the whole body sees what it wrote (the
   * library's "up to date" list reads the download record).
   */
  onSent?: (sent: SentBytes) => Promise<void>;
  /** Counted in the download metrics (bytes sent, transfers in flight). */
  download?: boolean;
};

/** The bytes `first`..`last` (inclusive) of a file of `size` bytes served under `etag`. */
export type SentBytes = { first: number; last: number; size: number; etag: string };

type ByteRange = { start: number; end: number };

/** How many bytes of a file a response reads ahead of its client. */
const RESPONSE_READ_AHEAD = 1024 * 1024;

/**
 * The one byte range to answer from a `Range` header (parsed by range-parser), "unsatisfiable"
 * (416), or null to answer the whole file: no header, a malformed one or another unit (RFC 9110
 * says to ignore those), and several disjoint ranges, since we send no multipart/byteranges
 * bodies. Overlapping and adjacent ranges are combined into one first.
 */
export function selectRange(header: string | null, size: number): ByteRange | "unsatisfiable" | null {
  if (!header) return null;
  const ranges = parseRangeHeader(size, header, { combine: true });
  if (ranges === -1) return "unsatisfiable";
  if (ranges === -2 || ranges.type !== "bytes" || ranges.length !== 1) return null;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

/**
 * Runs a storage call; a storage that is down or unreadable becomes a 503 refusal with
 * `Retry-After` (logged as a server error), so the downloader hears to try again, not that the
 * file is gone.
 */
async function fromStorage<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isStorageOutage(error)) throw error;
    log().error(errorFields(error), "File storage failed while a file was served");
    throw new DomainError(503, STORAGE_UNAVAILABLE_MESSAGE, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
  }
}

export async function serveStoredFile(request: Request, store: Storage, key: string, options: ServeOptions): Promise<Response> {
  const info = await fromStorage(() => store.stat(key));
  if (!info) return new Response(JSON.stringify({ error: "File not found." }), { status: 404, headers: { "Content-Type": "application/json" } });
  const headers = new Headers({
    "Content-Type": options.contentType,
    "Cache-Control": options.cacheControl,
    ETag: info.etag,
    "Last-Modified": info.lastModified.toUTCString(),
    "Accept-Ranges": "bytes",
  });
  if (options.fileName) {
    const ascii = options.fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
    headers.set("Content-Disposition", `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(options.fileName)}`);
  }
  if (request.headers.get("If-None-Match") === info.etag) return new Response(null, { status: 304, headers });

  const ifRange = request.headers.get("If-Range");
  const range = ifRange && ifRange !== info.etag ? null : selectRange(request.headers.get("Range"), info.size);
  if (range === "unsatisfiable") {
    headers.set("Content-Range", `bytes */${info.size}`);
    return new Response(null, { status: 416, headers });
  }
  const length = range ? range.end - range.start + 1 : info.size;
  headers.set("Content-Length", String(length));
  if (range) headers.set("Content-Range", `bytes ${range.start}-${range.end}/${info.size}`);
  const status = range ? 206 : 200;
  if (request.method === "HEAD") return new Response(null, { status, headers });
  const stream = await fromStorage(() => store.read(key, range ?? undefined));
  const onSent = options.onSent;
  const sent: SentBytes = { first: range?.start ?? 0, last: range?.end ?? info.size - 1, size: info.size, etag: info.etag };
  // Byte-counted with room for two chunks of the storage's reads, so the next read overlaps the
  // socket's write (an object-mode stream would let the response hold one chunk at a time).
  const read = options.download ? Readable.from(countedDownload(stream), { objectMode: false, highWaterMark: RESPONSE_READ_AHEAD }) : stream;
  const body = createReadableStreamFromReadable(read);
  return new Response(onSent && length > 0 ? holdLastByteUntil(body, length, () => onSent(sent)) : body, { status, headers });
}

/**
 * `body` (of `length` bytes) as the response reads it, chunk by chunk with nothing read ahead,
 * and its last byte held back: when the response asks for that byte, it has written every other
 * one (a response asks for its next chunk once the last was written and drained), and
 * `beforeLast` runs before the byte is handed over. A response whose client went away cancels
 * the stream instead, so `beforeLast` never runs for it; nor for a body that ends short.
 */
function holdLastByteUntil(body: ReadableStream<Uint8Array>, length: number, beforeLast: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let handedOver = 0;
  let lastByte: Uint8Array | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (lastByte) {
          await beforeLast();
          controller.enqueue(lastByte);
          controller.close();
          return;
        }
        // A read may bring an empty chunk: read on until there is something to hand over.
        for (;;) {
          const { done, value } = await reader.read();
          if (done) throw new Error(`The stored file ended after ${handedOver} of ${length} bytes.`);
          if (handedOver + value.length < length) {
            handedOver += value.length;
            if (value.length > 0) return controller.enqueue(value);
            continue;
          }
          lastByte = value.subarray(value.length - 1);
          handedOver += value.length - 1;
          if (value.length > 1) return controller.enqueue(value.subarray(0, value.length - 1));
          // The last byte came alone: hand it over now, since the response asked for it.
          await beforeLast();
          controller.enqueue(lastByte);
          controller.close();
          return;
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * A download's chunks, counted as they are handed to the response: the bytes sent, and the
 * transfer in flight from its first chunk until it ends or is aborted (the generator is returned).
 */
async function* countedDownload(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const inFlight = downloadsInFlight();
  const bytes = downloadBytes();
  inFlight.inc();
  try {
    for await (const chunk of chunks) {
      bytes.inc(chunk.length);
      yield chunk;
    }
  } finally {
    inFlight.dec();
  }
}

/** How a download is served: `traceNumber` stamps a ZIP with the downloader's leak-trace number (docs/security-model.md). */
export type DownloadServing = { traceNumber?: number | null };

/**
 * A file handed out as a download: never cached, saved under its own name. With a trace number,
 * a ZIP is served as its stamped copy (the stored bytes up to the end record, then a new end
 * record whose comment holds the number and its tag), with its own size and ETag; a file that
 * cannot be stamped (not a ZIP, or a broken end) is served as stored.
 */
export async function serveDownload(
  request: Request,
  file: { key: string; fileName: string; onSent?: (sent: SentBytes) => Promise<void> },
  serving: DownloadServing = {},
): Promise<Response> {
  const store = await storage();
  const number = serving.traceNumber;
  let stamped: Storage | null = null;
  if (number !== null && number !== undefined) {
    // The tag is in the ETag too: a copy stamped under another secret is another copy.
    const tag = traceTag(number);
    stamped = await fromStorage(() => stampedView(store, file.key, traceComment(number, tag), `t${number}-${tag}`));
  }
  return serveStoredFile(request, stamped ?? store, file.key, {
    contentType: "application/octet-stream",
    cacheControl: "private, no-store",
    fileName: file.fileName,
    onSent: file.onSent,
    download: true,
  });
}
