import { isRouteErrorResponse, Link, useLocation } from "@remix-run/react";
import { createContext, useContext } from "react";

/**
 * The id of the request that rendered this document (its X-Request-Id), shown on its error page
 * so a person can quote it. `locationKey`: the history entry the document was rendered for
 * (null on the server, which renders only that one).
 */
export type DocumentRequest = { id: string; locationKey: string | null };

export const RequestIdContext = createContext<DocumentRequest | null>(null);

/**
 * The id of the request whose answer this page shows: the document request's while the page shown
 * is the one it rendered; after a client-side navigation, that of the failed `.data` answer for
 * this page (noted by `noteDataRequestIds`), if there was one; else null.
 */
export function useRequestId(): string | null {
  const request = useContext(RequestIdContext);
  const { key, pathname } = useLocation();
  if (request && (request.locationKey === null || request.locationKey === key)) return request.id;
  return failedDataRequestId(pathname);
}

/**
 * After a client-side navigation (or a form posted without reloading), an error page's data came
 * from a single-fetch request (`/library.data?…`), and its error reaches the boundary without the
 * answer's headers: an unexpected error arrives sanitized ("Unexpected Server Error"), so the
 * request id cannot ride in the error's data either. The answer's own X-Request-Id header (every
 * answer of the app has one) is the one robust source, so the browser's fetch is wrapped to note
 * it: for each page path, the id of its latest `.data` answer if that failed (status 400 and up),
 * forgotten when a later one succeeds. An action that failed is not followed by a reload of the
 * page's data (single fetch skips that revalidation), so its id stays until the page is left.
 */
const failedDataRequests = new Map<string, string>();

/** The page a single-fetch address is for (`/library.data?_routes=…` is `/library`, `/_root.data` is `/`), or null for any other address. */
export function dataRequestPage(url: URL): string | null {
  if (!url.pathname.endsWith(".data")) return null;
  const page = url.pathname.slice(0, -".data".length);
  return page === "/_root" ? "/" : page;
}

/** The id of the failed `.data` answer for the page at `pathname`, or null. */
export function failedDataRequestId(pathname: string): string | null {
  return failedDataRequests.get(pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname) ?? null;
}

/** In the browser (entry.client.tsx), before Remix starts: notes the ids of the app's failed `.data` answers. */
export function noteDataRequestIds(win: { fetch: typeof fetch; location: { origin: string } }): void {
  const fetchFirst = win.fetch.bind(win);
  win.fetch = async (input, init) => {
    const response = await fetchFirst(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input), win.location.origin);
    const page = url.origin === win.location.origin ? dataRequestPage(url) : null;
    const id = response.headers.get("X-Request-Id");
    if (page !== null && id) {
      if (response.status >= 400) failedDataRequests.set(page, id);
      else failedDataRequests.delete(page);
    }
    return response;
  };
}

/** In the browser: the id the server wrote on the page, and the history entry it belongs to. */
export function documentRequestInPage(): DocumentRequest | null {
  const id = document.querySelector("[data-request-id]")?.textContent;
  if (!id) return null;
  const state = window.history.state as { key?: string } | null;
  return { id, locationKey: state?.key || "default" };
}

/**
 * An error boundary's unexpected error, on the browser's console. The server does not log it here:
 * Remix's handleError (app/entry.server.tsx) logged it already, as JSON with its request id, and
 * what a boundary gets on the server is only the sanitized "Unexpected Server Error".
 */
export function logInBrowser(error: unknown): void {
  if (typeof document !== "undefined") console.error(error);
}

/** The words of a page whose answer was 503 (a part of the site is down), in docs/messages.md. */
export const SITE_UNAVAILABLE_TITLE = "The site is briefly unavailable";
export const SITE_UNAVAILABLE_HINT = "Please try again in a minute.";

/** Whether a route's error is a 503 answer: the database (or another part) is down for a while. */
export function isUnavailable(error: unknown): boolean {
  return isRouteErrorResponse(error) && error.status === 503;
}

/**
 * An error page: its status, title and message. `hint` adds what to do, for an outage: a page
 * whose title and message the spec sets keeps them, and says it is briefly unavailable beside them.
 * A page the server rendered also shows its request's id (X-Request-Id), for a report.
 */
export function ErrorPage({ status, title, message, hint }: { status: number; title: string; message?: string; hint?: string }) {
  const requestId = useRequestId();
  return (
    <section className="error-page" aria-labelledby="error-title">
      <p className="error-status">{status}</p>
      <h1 id="error-title">{title}</h1>
      <p>{message ?? (status === 404 ? "There is nothing at this address." : "Please try again in a moment.")}</p>
      {hint ? <p>{hint}</p> : null}
      {requestId ? (
        <p className="error-request-id">
          If you report this, quote the request id <code data-request-id>{requestId}</code>.
        </p>
      ) : null}
      <Link to="/" className="button">
        Back to Home
      </Link>
    </section>
  );
}

/** The page of a route whose own words the spec sets, when its answer is an outage (503): status 503 and the hint added. */
export function unavailableRoutePage(error: unknown, title: string, message?: string): JSX.Element | null {
  if (!isUnavailable(error)) return null;
  return <ErrorPage status={503} title={title} message={message} hint={`${SITE_UNAVAILABLE_TITLE}. ${SITE_UNAVAILABLE_HINT}`} />;
}

/**
 * The page of a request a route refused with a 4xx answer (nothing at the address, a body that is
 * not a form), in the answer's words (`{ error }`, else its status text); null for any other
 * error, which the route's own boundary shows.
 */
export function refusedRequestPage(error: unknown): JSX.Element | null {
  if (!isRouteErrorResponse(error) || error.status >= 500) return null;
  if (error.status === 404) return <ErrorPage status={404} title="Page not found" />;
  const said = (error.data as { error?: unknown } | null)?.error;
  return <ErrorPage status={error.status} title={typeof said === "string" ? said : error.statusText} message="Please go back and try again." />;
}
