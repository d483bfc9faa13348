// Every security header of the site, defined here and nowhere else, and the cross-site rule for
// state changes. The HTTP server (server/security.ts) sets `responseSecurityHeaders` on every
// response before it is made (a header Remix sets replaces the server's); the only
// per-document part is the CSP of an HTML document (`documentCsp`, set by entry.server.tsx), which
// allows the inline scripts of that document alone: by the response's nonce, or by their hashes
// for a document that may be kept and shared. Enforced, never report-only.
// No imports of the app on purpose: server/ bundles this file outside the Remix build.
import { createHash } from "node:crypto";

/** The headers every response carries. `appUrl` decides HSTS (https only); `framedBySelf`: our own pages may frame it (downloads in the library's hidden frame). */
export function responseSecurityHeaders(appUrl: string, { framedBySelf = false }: { framedBySelf?: boolean } = {}): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    // What is not one of our HTML documents (JSON, files, images) may load and run nothing.
    "Content-Security-Policy": `default-src 'none'; frame-ancestors ${framedBySelf ? "'self'" : "'none'"}`,
    "X-Frame-Options": framedBySelf ? "SAMEORIGIN" : "DENY",
  };
  if (appUrl.startsWith("https://")) headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  return headers;
}

type InlineScripts = { nonce: string } | { hashes: readonly string[] };

/** The CSP of one HTML document: its own inline scripts only; OAuth callbacks may post to `callbackOrigins`. */
export function documentCsp(inline: InlineScripts, callbackOrigins: readonly string[]): string {
  const scriptSources = "nonce" in inline ? [`'nonce-${inline.nonce}'`] : inline.hashes;
  return [
    "default-src 'self'",
    // 'wasm-unsafe-eval' lets our own scripts compile WebAssembly ("Verify a file" hashes with
    // hash-wasm); it does not allow eval() of JavaScript.
    ["script-src 'self'", ...scriptSources, "'wasm-unsafe-eval'"].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self'",
    "connect-src 'self'",
    // The hidden download frame loads our own download endpoint.
    "frame-src 'self'",
    "frame-ancestors 'none'",
    // OAuth sign-in forms post to our own routes, which redirect; callbacks may go to allowed origins.
    ["form-action 'self'", ...callbackOrigins].join(" "),
    "base-uri 'self'",
    "object-src 'none'",
  ].join("; ");
}

const SCRIPT_OPEN = Buffer.from("<script");
const SCRIPT_CLOSE = Buffer.from("</script>");

/** The CSP sources (`'sha256-…'`, once each) of a document's inline scripts, found in its bytes without decoding them. */
export function inlineScriptHashes(html: Buffer): string[] {
  const hashes = new Set<string>();
  for (let at = html.indexOf(SCRIPT_OPEN); at !== -1; at = html.indexOf(SCRIPT_OPEN, at + 1)) {
    const tagEnd = html.indexOf(">", at);
    if (tagEnd === -1) break;
    const tag = html.toString("latin1", at, tagEnd + 1);
    // `<script` must end the name (not `<scripts`), and a script with a src has no inline text.
    if (!/^<script[\s/>]/.test(tag) || /\bsrc=/i.test(tag)) continue;
    // Its text runs to the first </script> (HTML raw-text rules).
    const close = html.indexOf(SCRIPT_CLOSE, tagEnd + 1);
    if (close === -1) break;
    if (close > tagEnd + 1)
      hashes.add(
        `'sha256-${createHash("sha256")
          .update(html.subarray(tagEnd + 1, close))
          .digest("base64")}'`,
      );
    at = close;
  }
  return [...hashes];
}

function originOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).origin;
  } catch {
    return "null";
  }
}

type StateChangeHeaders = { fetchSite?: string; origin?: string; referer?: string; authorization?: string };

/**
 * Was a state change sent from another site (CSRF, login CSRF included)? Judged by
 * Sec-Fetch-Site, else Origin or Referer; a request with neither is not from a browser page.
 * A Bearer token (any case of the scheme, RFC 9110) is exempt: browsers never send one on their
 * own. `ownOrigins`: APP_URL's origin, and the one the Host names.
 */
export function isCrossSite({ fetchSite, origin, referer, authorization }: StateChangeHeaders, ownOrigins: readonly string[]): boolean {
  if (/^bearer\s/i.test(authorization ?? "")) return false;
  const sender = originOf(origin) ?? originOf(referer);
  const own = sender !== null && ownOrigins.includes(sender);
  if (fetchSite === "same-origin" || fetchSite === "none" || fetchSite === undefined) return sender !== null && !own;
  // A sibling subdomain is another site for us unless it names our own origin.
  return !own;
}
