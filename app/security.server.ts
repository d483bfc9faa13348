// Security headers for every response. The CSP is enforced (not report-only) and allows inline
// scripts only with the response's nonce.
import { env } from "~/env.server";

export function securityHeaders({ nonce, html }: { nonce?: string; html: boolean }): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
  };
  if (env().APP_URL.startsWith("https://")) {
    headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  }
  if (html && nonce) {
    headers["Content-Security-Policy"] = [
      "default-src 'self'",
      `script-src 'self' 'nonce-${nonce}'`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob: https:",
      "font-src 'self'",
      "connect-src 'self'",
      // The hidden download frame loads our own download endpoint.
      "frame-src 'self'",
      "frame-ancestors 'none'",
      "form-action 'self' " + formActionTargets(),
      "base-uri 'self'",
      "object-src 'none'",
    ].join("; ");
  }
  return headers;
}

/** OAuth sign-in forms post to our own routes, which redirect; callbacks may go to allowed origins. */
function formActionTargets(): string {
  return env().CALLBACK_ORIGINS.join(" ");
}
