// One scope per request, opened by the HTTP server (server/observe.ts) for every request past the
// static files: its own id (X-Request-Id; a client's is replaced), what the edge decided about it,
// and what the app learns about it for its log line (the signed-in account). Shared through
// globalThis: the Remix build and the HTTP server are bundled apart.

import { AsyncLocalStorage } from "node:async_hooks";

export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * - `requestId`: on every log line written while the request is handled (app/logger.server.ts),
 *   also by work it started that goes on after its answer.
 * - `accountId`: the account whose session or API token the request carried, once the app has
 *   read it (routes that never read the session leave it unset).
 * - `passwordAnswerBy`: by when (a `performance.now()` instant) a password check of this request
 *   must have answered, or hear "busy" (server/admission.ts sets it for routes that check
 *   passwords, and moves it once a slow body has arrived).
 */
export type RequestScope = { readonly requestId: string; accountId?: string; passwordAnswerBy?: number };

const shared = globalThis as unknown as { __requestScopes?: AsyncLocalStorage<RequestScope> };
const scopes = (shared.__requestScopes ??= new AsyncLocalStorage<RequestScope>());

/** Runs the rest of a request's handling within its scope. */
export function runInRequestScope<T>(scope: RequestScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The scope of the request being handled; undefined outside one (a job, a test calling a function). */
export function currentRequestScope(): RequestScope | undefined {
  return scopes.getStore();
}

/**
 * `work` as a callback that runs outside any request's scope wherever it was set up: a timer or a
 * listener armed during one request that goes on serving the process (its lines name no request).
 */
export function outsideRequest<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R {
  return (...args) => scopes.exit(() => work(...args));
}

/** By when the current request's password check must answer; undefined outside a scope that sets it. */
export function passwordAnswerDeadline(): number | undefined {
  return scopes.getStore()?.passwordAnswerBy;
}

/** The id the HTTP server gave this request, or null outside it (a test calling a route). */
export function requestIdOf(request: Request): string | null {
  return request.headers.get(REQUEST_ID_HEADER);
}

/** The current request was made by this account (its session or API token). */
export function noteRequestAccount(accountId: string): void {
  const scope = scopes.getStore();
  if (scope) scope.accountId = accountId;
}

/** The id of the request being handled (X-Request-Id), or null outside a request. */
export function currentRequestId(): string | null {
  return scopes.getStore()?.requestId ?? null;
}

/**
 * Who is asking, as far as formatting for them goes: the request headers that say the viewer's
 * languages and time zone and whether they are signed in. Set around every request the app
 * answers (server/app.ts); `dates` is what app/utils/dates.server.ts worked out from them, once.
 */
export type ViewerScope = {
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

/** The current request's viewer; undefined outside a request (mails, jobs, a test calling a function). */
export function currentViewer(): ViewerScope | undefined {
  return viewers.getStore();
}
