// A page answered again before Remix runs (docs/decisions/025-kept-reader-pages.md): a GET of a
// page that opts in, by a signed-in reader (`keptForReaders`) or a guest (`guestCacheable`), is
// answered from the document kept for the same address, cookies and languages while one database
// lookup gives the same stamp, and the time has not reached the first instant at which the page
// would change with no write. The stamp (`reader_page_stamp`, migrations 0063 and 0064) covers,
// for a reader, the session, the account's row, its viewer context, the library version and every
// row that belongs to the account; for a guest, the library version and the version of the rest
// guests see. The rest of the page comes from the request headers in the key.
import { parse as parseCookies } from "cookie";
import { queryRows } from "~/db.server";
import { codedAnswer, documentEtag } from "~/content-coding.server";
import { type CacheableHandle, type KeptDocument, rememberKeptPage, SHARED_PAGE_VARY } from "~/document-cache.server";
import { env } from "~/env.server";
import { libraryPostsAt } from "~/models/library-listing.server";
import { pageTurnsAt } from "~/request-context.server";
import { markSent, SAME_ASK, sharedReads } from "~/shared-reads.server";
import { TOAST_COOKIE } from "~/toast.server";
import { timeUntilTurnsAt } from "~/utils/access-words";
import { isGuest, sessionCookie } from "~/utils/auth-cookies.server";
import { badgesTurnAt } from "~/utils/badges";

/** What a kept page depends on in the request. */
export type ReaderRequest = {
  method: string;
  /** Path and query, as sent. */
  url: string;
  cookie: string | undefined;
  authorization: string | undefined;
  acceptLanguage: string | undefined;
};

/** The kept page's key and the stamp read before Remix runs (so a write after it moves the stamp); no account for a guest. */
export type ReaderLookup = { key: string; accountId: string | null; libraryStamp: string; stamp: string; since: number };

/**
 * The key of the request's kept page: its address (Remix sees it on APP_URL's origin), whole Cookie header (session, time zone,
 * 18+ answer) and Accept-Language (the dates' locale); a page's single fetch data (`/library.data`)
 * has its own address, so its own key. Null when Remix must answer: another method, an API token,
 * or a toast waiting to be shown.
 */
export function readerPageKey(request: ReaderRequest): string | null {
  if ((request.method !== "GET" && request.method !== "HEAD") || request.authorization) return null;
  if (request.cookie && TOAST_COOKIE in parseCookies(request.cookie)) return null;
  return [request.url, request.cookie ?? "", request.acceptLanguage ?? ""].join("\n");
}

type StampRow = { account_id: string | null; library_stamp: string; stamp: string };

/** Stamp reads shared by the requests of one session (or of all guests) that arrive while one is in flight (app/shared-reads.server.ts). */
const sharedStamps = sharedReads<null, StampRow | undefined>(SAME_ASK);

/** The stamp of the request's kept page, read in one query; null: the page does not opt in for this viewer, no valid session, or an admin. */
export async function readerPageLookup(request: ReaderRequest, page: CacheableHandle, now = Date.now()): Promise<ReaderLookup | null> {
  const key = readerPageKey(request);
  if (key === null) return null;
  const guest = isGuest(request);
  if (!(guest ? page.guestCacheable : page.keptForReaders)) return null;
  const sessionId: unknown = guest ? null : await sessionCookie().parse(request.cookie ?? null);
  if (!guest && (typeof sessionId !== "string" || !sessionId)) return null;
  const row = await sharedStamps(typeof sessionId === "string" ? sessionId : "", null, async (read) => {
    markSent(read);
    return (await queryRows<StampRow>("SELECT * FROM reader_page_stamp($1)", [sessionId]))[0];
  });
  return row ? { key, accountId: row.account_id, libraryStamp: row.library_stamp, stamp: row.stamp, since: now } : null;
}

/**
 * The first instant after `now` at which the library at `libraryStamp` could show this viewer
 * something else with no write (epoch ms; undefined: never): a scheduled publication or release
 * step (the listing's own next change), a New or Updated badge that begins or ends, and the
 * instant a countdown to a publication or step ("in 3 days", "in 5 hours", "in 20 minutes")
 * would read otherwise. Read from the listing's snapshot at the request's own library version.
 */
export async function libraryPageTurnsAt(libraryStamp: string, now = Date.now(), onlyPostId?: string): Promise<number | undefined> {
  const { posts, until } = await libraryPostsAt(libraryStamp, new Date(now));
  let next = until ?? Number.POSITIVE_INFINITY;
  const earlier = (at: number | null) => (next = Math.min(next, at ?? Number.POSITIVE_INFINITY));
  for (const post of posts) {
    if (onlyPostId !== undefined && post.id !== onlyPostId) continue;
    earlier(badgesTurnAt(post, now));
    for (const at of [post.publishAt, ...post.releaseSteps.map((step) => step.opensAt)]) if (at) earlier(timeUntilTurnsAt(at, new Date(now)));
  }
  return Number.isFinite(next) ? next : undefined;
}

/**
 * When a page kept at `lookup` goes stale with no write, a guest's or a reader's: the instant its
 * loaders noted (`notePageTurnsAt`: a badge, a countdown's words, a step, the vote's second), or
 * never when nothing it shows depends on the time.
 */
export function keptPageUntil(lookup: ReaderLookup): number {
  return Math.max(lookup.since, pageTurnsAt() ?? Number.POSITIVE_INFINITY);
}

/** Pages Remix is making for a request that found none fresh, by key and stamp: settled once its answer ended. */
const pagesBeingMade = new Map<string, Promise<void>>();
const makingKey = (lookup: ReaderLookup) => `${lookup.key}\n${lookup.stamp}`;

/** The page at `lookup`'s key and stamp that another request is making now, if any. */
export function pageBeingMade(lookup: ReaderLookup): Promise<void> | undefined {
  return pagesBeingMade.get(makingKey(lookup));
}

/**
 * How long requests wait for a page another request is making, at most: should its end never be
 * reported, they go on to Remix themselves rather than wait for ever.
 */
export const PAGE_MAKING_WAIT_MS = 10_000;

/** Notes that this request's answer will make the page at `lookup`; answers the call for when it has ended. */
export function startMakingPage(lookup: ReaderLookup): () => void {
  const key = makingKey(lookup);
  if (pagesBeingMade.has(key)) return () => undefined;
  let settle = () => undefined as void;
  const making = new Promise<void>((resolve) => (settle = resolve));
  const made = () => {
    clearTimeout(givenUp);
    if (pagesBeingMade.get(key) === making) pagesBeingMade.delete(key);
    settle();
  };
  const givenUp = setTimeout(made, PAGE_MAKING_WAIT_MS);
  pagesBeingMade.set(key, making);
  return made;
}

/** The stamp the HTTP server read for this request's kept answer (server/app.ts), or null: not to be kept. */
export function readerLookupOf(context: Record<string, unknown> | undefined): ReaderLookup | null {
  return (context?.readerLookup as ReaderLookup | null | undefined) ?? null;
}

/**
 * Data answered whole (single fetch's `.data` of a kept page, or an API's JSON) for the request in
 * the coding it asks for; kept for the next request of this viewer (`lookup`: the stamp the HTTP
 * server read before Remix ran) until it goes stale, and then answered before Remix as pages are.
 * Without a lookup it is only answered.
 */
export function keptDataAnswer(request: Request, lookup: ReaderLookup | null, bytes: Buffer<ArrayBuffer>, responseHeaders: Headers): Promise<Response> {
  const data: KeptDocument = { bytes, etag: documentEtag(bytes), scriptHashes: [], encoded: {}, encoding: {} };
  const headers = new Headers(responseHeaders);
  headers.delete("Content-Length");
  // As the HTTP server writes Remix's text types (server/remix-adapter.ts), so a kept answer has the same header.
  const type = headers.get("Content-Type");
  if (type && /^text\/[^;]+$/.test(type)) headers.set("Content-Type", `${type}; charset=utf-8`);
  const vary = lookup?.accountId === null ? SHARED_PAGE_VARY : "Accept-Encoding";
  if (lookup && env().NODE_ENV !== "development") rememberKeptPage(lookup.key, lookup.stamp, data, headers, vary, keptPageUntil(lookup));
  return codedAnswer(request, data, headers, vary);
}
