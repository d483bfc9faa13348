// Rendered documents, kept: a plain GET document is a pure function of its address and loader data
// (inline scripts are allowed by hash, not nonce), rendered once per change of that data. Pages
// that opt in may also be answered before Remix (app/models/reader-pages.server.ts): a guest's
// (`guestCacheable`, public for shared caches too) and a signed-in reader's (`keptForReaders`).
import { createHash } from "node:crypto";
import { createCache } from "~/cache.server";
import { contentCoding, documentEtag, type EncodedDocument, etagListMatches, readyRepresentation, representationHeaders } from "~/content-coding.server";
import { inlineScriptHashes } from "~/security.server";
import { isGuest } from "~/utils/auth-cookies.server";

/** Browsers revalidate every time; shared caches keep a copy for a minute and may serve it stale while they refetch. */
export const GUEST_CACHE_CONTROL = "public, max-age=0, s-maxage=60, stale-while-revalidate=300";

/** A shared page differs by the guest's cookies (the 18+ answer) and by the coding asked for. */
export const SHARED_PAGE_VARY = "Cookie, Authorization, Accept-Encoding";

export type CacheableHandle = { guestCacheable?: boolean; keptForReaders?: boolean };

/** Does the page opt in to `kind` (`handle`: its leaf route's), and is this a plain 200 GET that sets no cookie? A guest's, for `guestCacheable`. */
export function isCacheable(kind: keyof CacheableHandle, request: Request, status: number, responseHeaders: Headers, handle: unknown): boolean {
  if (request.method !== "GET" || status !== 200 || responseHeaders.has("Set-Cookie")) return false;
  if (kind === "guestCacheable" && !isGuest({ cookie: request.headers.get("Cookie"), authorization: request.headers.get("Authorization") })) return false;
  return (handle as CacheableHandle | undefined)?.[kind] === true;
}

/** A 200 answer to a GET without action data, errors or deferred data: its loader data is everything it shows. */
export function isKeepable(request: Request, status: number, state: { actionData: unknown; errors: unknown; activeDeferreds: object | null }): boolean {
  if (request.method !== "GET" || status !== 200 || state.actionData || state.errors) return false;
  return !state.activeDeferreds || Object.keys(state.activeDeferreds).length === 0;
}

/** A rendered document, kept with its compressed bytes (app/content-coding.server.ts) and the CSP sources of its inline scripts. */
export type KeptDocument = EncodedDocument & { scriptHashes: string[] };

export function newKeptDocument(bytes: Buffer<ArrayBuffer>): KeptDocument {
  return { bytes, etag: documentEtag(bytes), scriptHashes: inlineScriptHashes(bytes), encoded: {}, encoding: {} };
}

/** About 4 MB of the largest pages (the library is ~70 KB) per server process. */
const renderedDocuments = createCache<KeptDocument>(64);

/** A kept document's key: its address and its loader data, as the bytes Remix streams into the page or, without them, as JSON. */
export function documentKey(url: string, data: readonly Uint8Array[] | Record<string, unknown>): string {
  const hash = createHash("sha256").update(url).update("\u0000");
  if (Array.isArray(data)) for (const chunk of data as readonly Uint8Array[]) hash.update(chunk);
  else hash.update(JSON.stringify(data) ?? "");
  return hash.digest("base64url");
}

/** The document for `key`, rendered only when none is kept; the key holds all it is made from, so its version never moves. */
export async function keptDocument(key: string, render: () => Promise<Buffer<ArrayBuffer>>): Promise<KeptDocument> {
  return renderedDocuments.get(key, "", async () => ({ value: newKeptDocument(await render()) }));
}

/** A page answered before Remix: its document, the headers Remix sent (without the coding's) and its Vary. */
type KeptPage = { document: KeptDocument; headers: [string, string][]; vary: string };
const keptPages = createCache<KeptPage>(192);

export type KeptPageAnswer = { status: 200 | 304; headers: [string, string][]; body: Buffer | null };

/** Keeps a page just answered by Remix, at the stamp read before Remix ran, until `until`. */
export function rememberKeptPage(key: string, version: string, document: KeptDocument, headers: Headers, vary: string, until: number): void {
  keptPages.set(key, version, { value: { document, headers: [...headers.entries()], vary }, until });
}

/** The answer from the page kept for `key` at `version`, or null: none fresh, or the coding asked for not made yet. */
export function keptPageAnswer(key: string, version: string, headers: { ifNoneMatch?: string; acceptEncoding?: string }, now = Date.now()) {
  const page = keptPages.peek(key, version, now);
  const answer = page && readyRepresentation(page.document, contentCoding(headers.acceptEncoding));
  if (!answer) return null;
  const answerHeaders = [...page.headers, ...representationHeaders(answer, page.vary)];
  const notModified = etagListMatches(headers.ifNoneMatch, answer.etag);
  return { status: notModified ? 304 : 200, headers: answerHeaders, body: notModified ? null : answer.body } satisfies KeptPageAnswer;
}
