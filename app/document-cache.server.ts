// Guest pages that a CDN may keep for a short time. A page opts in with
// `export const handle = { guestCacheable: true }`; the document is then shared only when the
// request carries no session or flash cookie and the answer sets no cookie, so nothing personal
// can reach a shared cache. Such a document cannot use a per-request CSP nonce (every cached
// copy would carry the same one), so its inline scripts are allowed by their SHA-256 instead,
// and it gets an ETag so a cache revalidates with a cheap 304.
// Such a document is a pure function of its address and its routes' loader data (the build is
// fixed for the process), so it is also rendered once per change of that data and kept here.
import { createHash } from "node:crypto";

/** Browsers revalidate every time; shared caches keep a copy for a minute and may serve it stale while they refetch. */
export const GUEST_CACHE_CONTROL = "public, max-age=0, s-maxage=60, stale-while-revalidate=300";

/** Cookies that make a document personal: the session and the flash (toast) cookie. */
const PERSONAL_COOKIES = ["__session", "toast-session"];

export type CacheableHandle = { guestCacheable?: boolean };

type Match = { route: { id: string } };

/** Does every matched route allow shared caching, and is this a guest's plain 200 GET? */
export function isGuestCacheable(
  request: Request,
  status: number,
  responseHeaders: Headers,
  matches: readonly Match[],
  routeModules: Record<string, { handle?: unknown } | undefined>,
): boolean {
  if (request.method !== "GET" || status !== 200 || responseHeaders.has("Set-Cookie")) return false;
  const cookies = request.headers.get("Cookie") ?? "";
  if (PERSONAL_COOKIES.some((name) => new RegExp(`(?:^|;\\s*)${name}=`).test(cookies))) return false;
  const leaf = matches[matches.length - 1];
  if (!leaf) return false;
  return (routeModules[leaf.route.id]?.handle as CacheableHandle | undefined)?.guestCacheable === true;
}

/** The CSP sources of every inline script of a rendered document: `'sha256-…'`, once each. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  // Inline scripts have no src; their text runs to the first </script> (HTML raw-text rules).
  for (const match of html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    const text = match[1] ?? "";
    if (text.length === 0) continue;
    hashes.add(`'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

/** A strong validator of the exact bytes: the same document, the same tag. */
export function documentEtag(html: string): string {
  return `"${createHash("sha256").update(html, "utf8").digest("base64url").slice(0, 27)}"`;
}

/** Does the request's If-None-Match name this tag (or `*`)? */
export function matchesEtag(request: Request, etag: string): boolean {
  const header = request.headers.get("If-None-Match");
  if (!header) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, "");
    return tag === etag || tag === "*";
  });
}

export type SharedDocument = { html: string; etag: string; scriptHashes: string[] };

const KEPT_DOCUMENTS = 32;
const keptDocuments = new Map<string, SharedDocument>();

/** The key of a shared document: its address and everything its routes loaded. */
export function sharedDocumentKey(url: string, loaderData: unknown): string {
  return createHash("sha256").update(url).update("\u0000").update(JSON.stringify(loaderData) ?? "").digest("base64url");
}

/**
 * The rendered document for `key`, rendering it only when no copy is kept. The newest
 * KEPT_DOCUMENTS stay; a change of any loader's data makes a new key, so nothing is stale.
 */
export async function sharedDocument(key: string, render: () => Promise<string>): Promise<SharedDocument> {
  const kept = keptDocuments.get(key);
  if (kept) {
    // Map order is insertion order: move a hit to the back so the oldest unused goes first.
    keptDocuments.delete(key);
    keptDocuments.set(key, kept);
    return kept;
  }
  const html = await render();
  const document = { html, etag: documentEtag(html), scriptHashes: inlineScriptHashes(html) };
  keptDocuments.set(key, document);
  if (keptDocuments.size > KEPT_DOCUMENTS) keptDocuments.delete(keptDocuments.keys().next().value!);
  return document;
}
