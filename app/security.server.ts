// Security headers for every response. Documents get an enforced (not report-only) CSP that
// allows inline scripts only with the response's nonce, or for a shared-cacheable guest page
// only by their hashes; everything else gets a CSP that allows nothing (set by server/ for responses that carry no CSP of their own).
// No imports on purpose: server/index.ts loads this file directly, outside the Remix build.

/** Headers every response carries, whatever its type. `appUrl` decides HSTS (https only). */
export function baseSecurityHeaders(appUrl: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
  };
  if (appUrl?.startsWith("https://")) {
    headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  }
  return headers;
}

/**
 * The CSP of a response that is not one of our HTML documents (JSON, files, images). Downloads
 * are opened in the library page's hidden frame, so only they may be framed, and only by us.
 */
export function resourceCsp(framedBySelf: boolean): string {
  return `default-src 'none'; frame-ancestors ${framedBySelf ? "'self'" : "'none'"}`;
}

type Site = { appUrl: string; callbackOrigins: string[] };

type InlineScripts = { nonce: string } | { hashes: readonly string[] };

export function securityHeaders({ inline, html, site }: { inline?: InlineScripts; html: boolean; site: Site }): Record<string, string> {
  const headers = baseSecurityHeaders(site.appUrl);
  if (html && inline) {
    const scriptSources = "nonce" in inline ? [`'nonce-${inline.nonce}'`] : inline.hashes;
    headers["Content-Security-Policy"] = [
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
      ["form-action 'self'", ...site.callbackOrigins].join(" "),
      "base-uri 'self'",
      "object-src 'none'",
    ].join("; ");
    headers["X-Frame-Options"] = "DENY";
  }
  return headers;
}
