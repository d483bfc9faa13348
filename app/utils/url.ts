/**
 * The address with one more query parameter, encoded as encodeURIComponent does (a space is
 * %20, not the form encoding's +), so a receiver reading it with decodeURIComponent gets the
 * exact value. The address's own query is kept as it was written.
 */
export function withQueryParam(url: URL, name: string, value: string): string {
  const next = new URL(url);
  const pair = `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  next.search = next.search ? `${next.search}&${pair}` : `?${pair}`;
  return next.toString();
}

/**
 * A site-relative address (path and query) with the query parameter `name` set to `value`, or
 * removed when `value` is null; the other parameters keep their order.
 */
export function withParam(address: string, name: string, value: string | null): string {
  const url = new URL(address, "http://local");
  if (value === null) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}
