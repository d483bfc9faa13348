// Rendered documents, kept. Every plain GET document is a pure function of its address and its
// loader data (inline scripts are allowed by SHA-256, not a per-response nonce), so it is rendered
// once per change of that data, with its Brotli and gzip bytes made once when first asked for.
// A guest page that opts in (`handle = { guestCacheable: true }`), asked with no session or flash
// cookie and answered with no cookie, may also be kept by shared caches (a CDN) and, for a second,
// answered by this server before Remix runs.
import cluster from "node:cluster";
import { createHash } from "node:crypto";
import { createCache } from "~/cache.server";
import { contentCoding, documentEtag, type EncodedDocument, etagListMatches, readyRepresentation, representationHeaders } from "~/content-coding.server";
import { onGuestContentWrite } from "~/db.server";
import { inlineScriptHashes } from "~/security.server";
import { isGuest, type GuestHeaders } from "~/utils/auth-cookies.server";

/** Browsers revalidate every time; shared caches keep a copy for a minute and may serve it stale while they refetch. */
export const GUEST_CACHE_CONTROL = "public, max-age=0, s-maxage=60, stale-while-revalidate=300";

/** `keptForReaders`: a signed-in reader's unchanged page is answered before Remix (app/models/reader-pages.server.ts). */
export type CacheableHandle = { guestCacheable?: boolean; keptForReaders?: boolean };

type Match = { route: { id: string } };

/** Does the page opt in to `kind` (its leaf route's handle), and is this a plain 200 GET that sets no cookie? A guest's, for `guestCacheable`. */
export function isCacheable(
  kind: keyof CacheableHandle,
  request: Request,
  status: number,
  responseHeaders: Headers,
  matches: readonly Match[],
  routeModules: Record<string, { handle?: unknown } | undefined>,
): boolean {
  if (request.method !== "GET" || status !== 200 || responseHeaders.has("Set-Cookie")) return false;
  const guest = isGuest({ cookie: request.headers.get("Cookie"), authorization: request.headers.get("Authorization") });
  if (kind === "guestCacheable" && !guest) return false;
  const leaf = matches[matches.length - 1];
  return leaf !== undefined && (routeModules[leaf.route.id]?.handle as CacheableHandle | undefined)?.[kind] === true;
}

/** What a rendered document depends on besides its address and loader data. */
type RenderState = { loaderData: unknown; actionData: unknown; errors: unknown; activeDeferreds: Record<string, unknown> | null };

/** A 200 answer to a GET without action data, errors or deferred data: its loader data is everything it shows. */
export function isKeepable(request: Request, status: number, state: RenderState): boolean {
  if (request.method !== "GET" || status !== 200 || state.actionData || state.errors) return false;
  return !state.activeDeferreds || Object.keys(state.activeDeferreds).length === 0;
}

/** A rendered document, kept with its compressed bytes (app/content-coding.server.ts) and the CSP sources of its inline scripts. */
export type KeptDocument = EncodedDocument & { scriptHashes: string[] };

export function newKeptDocument(bytes: Buffer<ArrayBuffer>): KeptDocument {
  return { bytes, etag: documentEtag(bytes), scriptHashes: inlineScriptHashes(bytes), encoded: {}, encoding: {} };
}

/** About 4 MB of the largest pages (the library is ~70 KB) per server process (app/cache.server.ts). */
const renderedDocuments = createCache<KeptDocument>(64);

/**
 * A kept document's key: its address and its loader data, as the bytes Remix streams into the
 * page (serialized already, so not serialized again here) or, without them, as JSON.
 */
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

// ---------------------------------------------------------------- guest pages answered before Remix
// The HTTP server (server/app.ts) asks here before it hands a guest's GET to Remix. A kept page's
// version is the count of writes to what guests see that this server's workers noticed
// (app/db.server.ts), and it goes stale after SHARED_PAGE_REUSE_MS, which bounds how long another
// app server's change takes to show.

/** How long a kept guest page is answered as is. */
export const SHARED_PAGE_REUSE_MS = 1_000;

/** `headers` are the answer's own, without the ETag, Content-Encoding and Vary of its representation. */
type SharedPage = { document: KeptDocument; headers: [string, string][] };

/** One copy per address and whole Cookie header, as `Vary: Cookie` tells shared caches (the 18+ answer changes the library). */
function sharedPageKey(pathAndQuery: string, cookie: string | null | undefined): string {
  return `${pathAndQuery}\n${cookie ?? ""}`;
}
const sharedPages = createCache<SharedPage>(64);
let guestContentVersion = 0;

/** The version of what guests see, as this process knows it; taken when a request starts, before its loaders read anything. */
export function sharedPagesSince(): number {
  return guestContentVersion;
}

/** Keeps a guest page just made, unless a write to what guests see came in since its request started (`since`). */
export function rememberSharedPage(url: string, cookie: string | null, document: KeptDocument, headers: Headers, since: number, now = Date.now()): void {
  if (since !== guestContentVersion) return;
  const { pathname, search } = new URL(url);
  sharedPages.set(sharedPageKey(pathname + search, cookie), String(since), {
    value: { document, headers: [...headers.entries()] },
    until: now + SHARED_PAGE_REUSE_MS,
  });
}

export type SharedPageAnswer = { status: 200 | 304; headers: [string, string][]; body: Buffer | null };

/** A shared page differs by the guest's cookies (the 18+ answer) and by the coding asked for. */
export const SHARED_PAGE_VARY = "Cookie, Authorization, Accept-Encoding";

/** A guest's answer from the page kept for `pathAndQuery`, or null: none fresh, not a guest, or its coding not made yet. */
export function sharedPageAnswer(
  pathAndQuery: string,
  headers: GuestHeaders & { ifNoneMatch?: string | null; acceptEncoding?: string | null },
  now = Date.now(),
): SharedPageAnswer | null {
  if (!isGuest(headers)) return null;
  return pageAnswer(sharedPages.peek(sharedPageKey(pathAndQuery, headers.cookie), String(guestContentVersion), now), SHARED_PAGE_VARY, headers);
}

type ConditionalHeaders = { ifNoneMatch?: string | null; acceptEncoding?: string | null };

function pageAnswer(page: SharedPage | undefined, vary: string, headers: ConditionalHeaders): SharedPageAnswer | null {
  const answer = page && readyRepresentation(page.document, contentCoding(headers.acceptEncoding));
  if (!answer) return null;
  const answerHeaders = [...page.headers, ...representationHeaders(answer, vary)];
  if (etagListMatches(headers.ifNoneMatch, answer.etag)) return { status: 304, headers: answerHeaders, body: null };
  return { status: 200, headers: answerHeaders, body: answer.body };
}

// ---------------------------------------------------------------- signed-in readers' pages
// A page that opts in (`keptForReaders`) is kept per reader (app/models/reader-pages.server.ts
// makes the key, the version from one database lookup, and `until`) and answered before Remix.

const readerPages = createCache<SharedPage>(128);

/** Keeps a reader's page just made (its headers without the representation's), at the version read before Remix ran. */
export function rememberReaderPage(key: string, version: string, document: KeptDocument, headers: Headers, until: number): void {
  readerPages.set(key, version, { value: { document, headers: [...headers.entries()] }, until });
}

/** The reader's answer from the page kept for `key` at `version`, or null. */
export function readerPageAnswer(key: string, version: string, headers: ConditionalHeaders, now = Date.now()): SharedPageAnswer | null {
  return pageAnswer(readerPages.peek(key, version, now), "Accept-Encoding", headers);
}

/** A write to what guests see: every kept guest page is made again on its next request. */
export function forgetSharedPages(): void {
  guestContentVersion += 1;
  sharedPages.clear();
}

/** What the other workers of this server send when they noticed such a write. */
const FORGET_MESSAGE = "forget-shared-pages";

// This process's writes, and those of the other workers of this server (relayed by server/index.ts).
onGuestContentWrite(() => {
  forgetSharedPages();
  if (cluster.isWorker) process.send?.(FORGET_MESSAGE);
});
if (cluster.isWorker) {
  process.on("message", (message) => {
    if (message === FORGET_MESSAGE) forgetSharedPages();
  });
}
