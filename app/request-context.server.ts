// What the app tells the HTTP server about a request for its log line (server/observe.ts).
// The server gives every request it hands to the app its own id in X-Request-Id (a client's is
// replaced); the app notes the signed-in account under that id, and the server takes it when the
// response ends. Shared through globalThis: the Remix build and the HTTP server are bundled apart.

export const REQUEST_ID_HEADER = "X-Request-Id";

/** Notes kept at most: a note whose response ended before it was made is never taken. */
const MAX_NOTES = 10_000;

const shared = globalThis as unknown as { __requestAccounts?: Map<string, string> };
const accounts = (shared.__requestAccounts ??= new Map());

/** The id the HTTP server gave this request, or null outside it (a test calling a route). */
export function requestIdOf(request: Request): string | null {
  return request.headers.get(REQUEST_ID_HEADER);
}

/** The request was made by this account (its session or API token). */
export function noteRequestAccount(request: Request, accountId: string): void {
  const id = requestIdOf(request);
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
