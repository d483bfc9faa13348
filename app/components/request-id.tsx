import { useLocation } from "@remix-run/react";
import { createContext, useContext } from "react";

/**
 * The id of the request that rendered this document (its X-Request-Id), shown on its error page
 * so a person can quote it. `locationKey`: the history entry the document was rendered for
 * (null on the server, which renders only that one).
 */
export type DocumentRequest = { id: string; locationKey: string | null };

export const RequestIdContext = createContext<DocumentRequest | null>(null);

/** The document request's id, while the page shown is the one that request rendered; else null. */
export function useRequestId(): string | null {
  const request = useContext(RequestIdContext);
  const { key } = useLocation();
  // After a client-side navigation the page's data came from another request.
  if (!request || (request.locationKey !== null && request.locationKey !== key)) return null;
  return request.id;
}

/** In the browser: the id the server wrote on the page, and the history entry it belongs to. */
export function documentRequestInPage(): DocumentRequest | null {
  const id = document.querySelector("[data-request-id]")?.textContent;
  if (!id) return null;
  const state = window.history.state as { key?: string } | null;
  return { id, locationKey: state?.key || "default" };
}
