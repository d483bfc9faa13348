// Streams a stored object as an HTTP response, with ETag/Range support.
import { createReadableStreamFromReadable } from "@remix-run/node";
import type { Storage } from "~/integrations/storage.server";

export type ServeOptions = {
  contentType: string;
  cacheControl: string;
  fileName?: string;
  /** Called once the body has been handed over up to the file's last byte (not on aborts or HEAD). */
  onComplete?: () => void;
};

/** Parses a single `bytes=` range; null when absent or unsatisfiable is told apart by `invalid`. */
export function parseRange(header: string | null, size: number): { start: number; end: number } | "invalid" | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return "invalid";
  let start: number;
  let end: number;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "invalid";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return "invalid";
  return { start, end };
}

export async function serveStoredFile(request: Request, store: Storage, key: string, options: ServeOptions): Promise<Response> {
  const info = await store.stat(key);
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
  const range = ifRange && ifRange !== info.etag ? null : parseRange(request.headers.get("Range"), info.size);
  if (range === "invalid") {
    headers.set("Content-Range", `bytes */${info.size}`);
    return new Response(null, { status: 416, headers });
  }
  const length = range ? range.end - range.start + 1 : info.size;
  headers.set("Content-Length", String(length));
  if (range) headers.set("Content-Range", `bytes ${range.start}-${range.end}/${info.size}`);
  const status = range ? 206 : 200;
  if (request.method === "HEAD") return new Response(null, { status, headers });
  const stream = await store.read(key, range ?? undefined);
  // Completed = the last byte of the file went out (a resumed download completes with its last range).
  if (options.onComplete && (!range || range.end === info.size - 1)) stream.once("end", options.onComplete);
  return new Response(createReadableStreamFromReadable(stream), { status, headers });
}
