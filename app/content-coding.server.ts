// Brotli or gzip, as the client's Accept-Encoding asks, for the answers this app makes whole: kept
// documents (app/document-cache.server.ts) and loader data. Compressing such an answer in one call
// costs about a third of what the compression middleware (server/app.ts) costs on the same bytes:
// it opens a zlib stream per answer and hops to zlib's thread for every chunk written. Streamed
// answers (form results, error pages, downloads) are still the middleware's.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { AcceptEncoding } from "@mjackson/headers";
import { keptBytesResponse } from "~/utils/kept-bytes.server";

/** The content codings offered besides the plain bytes, best first. */
export type ContentCoding = "br" | "gzip";
const CONTENT_CODINGS: ContentCoding[] = ["br", "gzip"];

/** Below this, compressing saves less than it costs (the middleware's threshold as well). */
const MIN_COMPRESSED_BYTES = 1024;

/** The coding to answer a request's Accept-Encoding with; null for the plain bytes. */
export function contentCoding(acceptEncoding: string | null | undefined): ContentCoding | null {
  if (!acceptEncoding) return null;
  return new AcceptEncoding(acceptEncoding).getPreferred(CONTENT_CODINGS) as ContentCoding | null;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

function brotliOptions(bytes: Buffer, quality: number): zlib.BrotliOptions {
  return { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } };
}

/**
 * `bytes` in `coding`, on one of libuv's threads, for a page that is kept and sent again: Brotli
 * at `brotliQuality` (4 is the middleware's; more is smaller and slower).
 */
export function compress(bytes: Buffer, coding: ContentCoding, brotliQuality = 4): Promise<Buffer<ArrayBuffer>> {
  // zlib answers with a buffer of its own (never a shared one), hence the narrower type.
  const compressed = coding === "br" ? brotli(bytes, brotliOptions(bytes, brotliQuality)) : gzip(bytes);
  return compressed;
}

/**
 * `bytes` in `coding` at once, for an answer made per request: on a 25 KB answer the hop to
 * zlib's thread and back (about 0.1 ms of CPU) costs as much as the compressing itself. The
 * fastest levels, as the work is paid on every answer: the library's 27 KB of data becomes 6.0 KB
 * in 0.05 ms (Brotli 1) rather than 5.2 KB in 0.14 ms (Brotli 4); gzip 1 is 6.0 KB in 0.06 ms.
 */
function compressNow(bytes: Buffer, coding: ContentCoding): Buffer<ArrayBuffer> {
  const compressed = coding === "br" ? zlib.brotliCompressSync(bytes, brotliOptions(bytes, 1)) : zlib.gzipSync(bytes, { level: 1 });
  return compressed;
}

/** Adds `Accept-Encoding` to a response's Vary: its body depends on what the client accepts. */
export function varyOnAcceptEncoding(headers: Headers): void {
  const vary = headers.get("Vary");
  if (!vary) headers.set("Vary", "Accept-Encoding");
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.set("Vary", `${vary}, Accept-Encoding`);
}

/**
 * Loader and action data as single fetch sends it (`text/x-script`, a turbo-stream), or a JSON
 * answer. Read whole: the app's loaders return no promises, so the stream ends with its data.
 */
const WHOLE_DATA_TYPES = ["text/x-script", "application/json"];

/**
 * A data answer compressed whole as `request` asks, or the answer as it was: no coding accepted,
 * already encoded, not data (a redirect, other streams), or too small to gain.
 */
export async function compressedData(request: Request, response: Response): Promise<Response> {
  const coding = contentCoding(request.headers.get("Accept-Encoding"));
  const type = response.headers.get("Content-Type") ?? "";
  const isData = WHOLE_DATA_TYPES.some((dataType) => type.startsWith(dataType));
  if (!coding || !response.body || response.headers.has("Content-Encoding") || !isData) return response;
  const bytes = Buffer.from(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  varyOnAcceptEncoding(headers);
  if (bytes.length < MIN_COMPRESSED_BYTES) return new Response(bytes, { status: response.status, statusText: response.statusText, headers });
  headers.set("Content-Encoding", coding);
  headers.delete("Content-Length");
  return new Response(compressNow(bytes, coding), { status: response.status, statusText: response.statusText, headers });
}

/** A strong validator of the exact bytes: the same document, the same tag. */
export function documentEtag(bytes: Buffer): string {
  return `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;
}

/** Does the request's If-None-Match name this tag (or `*`)? */
export function matchesEtag(request: Request, etag: string): boolean {
  return etagListMatches(request.headers.get("If-None-Match"), etag);
}

export function etagListMatches(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, "");
    return tag === etag || tag === "*";
  });
}

/** A whole answer's plain bytes and validator, with its compressed bytes once made (`encoded`) or being made (`encoding`). */
export type EncodedDocument = {
  bytes: Buffer<ArrayBuffer>;
  etag: string;
  encoded: Partial<Record<ContentCoding, Buffer<ArrayBuffer>>>;
  encoding: Partial<Record<ContentCoding, Promise<Buffer<ArrayBuffer>>>>;
};

/** What one answer sends: the document's bytes in one coding, with that coding's own ETag. */
export type Representation = { body: Buffer<ArrayBuffer>; coding: ContentCoding | null; etag: string };

/** Brotli 4: 6 is 10% smaller but 40% slower, and a reader's own page is often made for one view. */
const KEPT_BROTLI_QUALITY = 4;
const ETAG_SUFFIXES: Record<ContentCoding, string> = { br: "-br", gzip: "-gz" };

/** Each coding's bytes differ, so each gets its own strong validator: `"<tag>-br"`, `"<tag>-gz"`. */
function representationEtag(document: EncodedDocument, coding: ContentCoding | null): string {
  return coding ? `${document.etag.slice(0, -1)}${ETAG_SUFFIXES[coding]}"` : document.etag;
}

/** The document in `coding` if its bytes are made already, else null. */
export function readyRepresentation(document: EncodedDocument, coding: ContentCoding | null): Representation | null {
  const body = coding ? document.encoded[coding] : document.bytes;
  return body ? { body, coding, etag: representationEtag(document, coding) } : null;
}

/** The document in `coding`, compressing it the first time that coding is asked for. */
export async function representation(document: EncodedDocument, coding: ContentCoding | null): Promise<Representation> {
  const ready = readyRepresentation(document, coding);
  if (ready || !coding) return ready!;
  // Requests that arrive while the bytes are being made wait for the same work.
  const pending = (document.encoding[coding] ??= compress(document.bytes, coding, KEPT_BROTLI_QUALITY).then((body) => {
    document.encoded[coding] = body;
    delete document.encoding[coding];
    return body;
  }));
  return { body: await pending, coding, etag: representationEtag(document, coding) };
}

/** The headers that say which representation of a document an answer carries. */
export function representationHeaders({ coding, etag }: Representation, vary: string): [string, string][] {
  return [["ETag", etag], ["Vary", vary], ...(coding ? [["Content-Encoding", coding] as [string, string]] : [])];
}

/**
 * The answer of a whole document in the coding `request` asks for, with `headers` and that
 * coding's validator: 304 without a body when If-None-Match names it. The bytes are sent as kept,
 * not copied (app/utils/kept-bytes.server.ts).
 */
export async function codedAnswer(request: Request, document: EncodedDocument, headers: Headers, vary: string, status = 200): Promise<Response> {
  const answer = await representation(document, contentCoding(request.headers.get("Accept-Encoding")));
  for (const [name, value] of representationHeaders(answer, vary)) headers.set(name, value);
  if (matchesEtag(request, answer.etag)) return new Response(null, { status: 304, headers });
  return keptBytesResponse(answer.body, { status, headers });
}
