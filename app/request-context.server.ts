// What the app tells the HTTP server about a request for its log line (server/observe.ts).
// The server gives every request it hands to the app its own id in X-Request-Id (a client's is
// replaced); the app notes the signed-in account under that id, and the server takes it when the
// response ends. Shared through globalThis: the Remix build and the HTTP server are bundled apart.

import { AsyncLocalStorage } from "node:async_hooks";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** Notes kept at most: a note whose response ended before it was made is never taken. */
const MAX_NOTES = 10_000;

/**
 * What the edge decided about a request that the app's work must honour: by when (a
 * `performance.now()` instant) a password check of this request must have answered, or hear
 * "busy" (server/admission.ts sets it for routes that check passwords, and moves it once a slow
 * body has arrived).
 */
export type RequestScope = { passwordAnswerBy?: number };

const shared = globalThis as unknown as { __requestAccounts?: Map<string, string>; __requestScopes?: AsyncLocalStorage<RequestScope> };
const accounts = (shared.__requestAccounts ??= new Map<string, string>());
const scopes = (shared.__requestScopes ??= new AsyncLocalStorage<RequestScope>());

/** Runs the rest of a request's handling within its scope. */
export function runInRequestScope<T>(scope: RequestScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** By when the current request's password check must answer; undefined outside a scope that sets it. */
export function passwordAnswerDeadline(): number | undefined {
  return scopes.getStore()?.passwordAnswerBy;
}

/** The id the HTTP server gave this request, or null outside it (a test calling a route). */
export function requestIdOf(request: Request): string | null {
  return request.headers.get(REQUEST_ID_HEADER);
}

/** The request was made by this account (its session or API token). */
export function noteRequestAccount(request: Request, accountId: string): void {
  noteAccountOf(requestIdOf(request), accountId);
}

/** The request with this id was made by this account (a page answered before the app ran). */
export function noteAccountOf(id: string | null, accountId: string): void {
  if (!id) return;
  if (accounts.size >= MAX_NOTES) accounts.clear();
  accounts.set(id, accountId);
}

/** The account noted for a request, forgotten once taken. */
export function takeRequestAccount(requestId: string): string | undefined {
  const account = accounts.get(requestId);
  if (account !== undefined) accounts.delete(requestId);
  return account;
}

/**
 * Who is asking, as far as formatting for them goes: the request headers that say the viewer's
 * languages and time zone and whether they are signed in. Set around every request the app
 * answers (server/app.ts); `dates` is what app/utils/dates.server.ts worked out from them, once.
 * `requestId`: the request's X-Request-Id, on every log line written while it is handled
 * (app/logger.server.ts), also by work it started that goes on after its answer.
 */
export type ViewerScope = {
  requestId: string | null;
  cookie: string | null;
  acceptLanguage: string | null;
  authorization: string | null;
  dates?: unknown;
  /** The first instant at which the page's data would change with no write, as its loaders noted (epoch ms). */
  turnsAt?: number;
  /** When the request reached the app, after the edge's own reads (`nextMoment`). */
  began: number;
};

const viewerShared = globalThis as unknown as { __requestViewers?: AsyncLocalStorage<ViewerScope>; __moments?: { last: number } };
const viewers = (viewerShared.__requestViewers ??= new AsyncLocalStorage<ViewerScope>());
const moments = (viewerShared.__moments ??= { last: 0 });

/** A point in this process's order of events: each call answers a later one than every call before. */
export function nextMoment(): number {
  return ++moments.last;
}

/** Runs a request's handling with its viewer's headers at hand. */
export function runAsViewer<T>(headers: { get(name: string): string | null }, work: () => T): T {
  const scope = {
    requestId: headers.get(REQUEST_ID_HEADER),
    cookie: headers.get("Cookie"),
    acceptLanguage: headers.get("Accept-Language"),
    authorization: headers.get("Authorization"),
    began: nextMoment(),
  };
  return viewers.run(scope, work);
}

/**
 * When the current request reached the app: a read sent after it sees every write that was done
 * before the request arrived. Outside a request, the moment of this call.
 */
export function requestBegan(): number {
  return viewers.getStore()?.began ?? nextMoment();
}

/**
 * A loader whose data depend on the time says when they next change with no write (a badge that
 * ends, a countdown's words, a release step): a page kept for readers goes stale then
 * (docs/decisions/027-pages-change-when-they-do.md). The earliest noted instant wins.
 */
export function notePageTurnsAt(at: number | null | undefined): void {
  const scope = viewers.getStore();
  if (scope && at !== null && at !== undefined) scope.turnsAt = Math.min(scope.turnsAt ?? Number.POSITIVE_INFINITY, at);
}

/** The instant noted by this request's loaders; undefined when none depends on the time, or outside a request. */
export function pageTurnsAt(): number | undefined {
  return viewers.getStore()?.turnsAt;
}

/** The id of the request being handled (X-Request-Id), or null outside a request. */
export function currentRequestId(): string | null {
  return viewers.getStore()?.requestId ?? null;
}

/** The current request's viewer; undefined outside a request (mails, jobs, a test calling a function). */
export function currentViewer(): ViewerScope | undefined {
  return viewers.getStore();
}
