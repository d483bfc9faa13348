// The `headers` export of pages that show one person's data. Remix builds a document's headers
// only from the routes' `headers` functions, so without one the Cache-Control a loader or action
// sets never reaches the page and app/entry.server.tsx answers its default (`private, no-cache`,
// which a browser may still write to disk).
import type { HeadersFunction } from "@remix-run/node";

/**
 * The document's Cache-Control from its route's loader, action or error answer (and its parent's):
 * the one saying `no-store` if any does, else the first set. Set-Cookie needs nothing here, Remix
 * passes it on by itself.
 */
export const personalPageHeaders: HeadersFunction = ({ loaderHeaders, actionHeaders, errorHeaders, parentHeaders }) => {
  const values = [errorHeaders, actionHeaders, loaderHeaders, parentHeaders].flatMap((headers) => headers?.get("Cache-Control") ?? []);
  const cacheControl = values.find((value) => /(?:^|,)\s*no-store\s*(?:,|$)/i.test(value)) ?? values[0];
  const headers = new Headers();
  if (cacheControl) headers.set("Cache-Control", cacheControl);
  return headers;
};
