// HTTP-level protections that apply to every request, whatever route answers it: security
// headers on every response, refusal of cross-site state changes, and body size caps. Business rules stay in app/models; this file only looks at HTTP.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { baseSecurityHeaders, resourceCsp } from "../app/security.server.ts";
import { bodyLimitFor as routeBodyLimit, DEFAULT_BODY_LIMIT, uploadKindFor } from "../app/utils/body-limits.ts";

const KIB = 1024;

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Download addresses open inside the library page's hidden frame. */
const FRAMED_BY_SELF = [/^\/download\//, /^\/api\/download\//];

export type SecurityOptions = {
  /** Time a request body may take to arrive (post-file uploads: more, by their size). */
  bodyTimeoutMs?: number;
  /** The public address of the site (APP_URL): its origin may post, https turns on HSTS. */
  appUrl: string;
  /** Largest post file an admin may upload (POST_FILE_MAX_BYTES). */
  postFileMaxBytes: number;
};

function jsonError(res: Response, status: number, error: string) {
  res.status(status).set("Cache-Control", "no-store").json({ error });
}

/** Answers before the body was read, then drops the connection instead of reading the body. */
function refuseBody(req: Request, res: Response, status: number, error: string) {
  res.set("Connection", "close");
  res.on("finish", () => req.socket.destroySoon());
  jsonError(res, status, error);
}

/**
 * A Set-Cookie value with the attributes every cookie of ours must carry: Secure when the site
 * is on https, SameSite=Lax unless the app chose a SameSite itself.
 */
export function hardenCookie(cookie: string, secure: boolean): string {
  let hardened = cookie;
  if (!/;\s*samesite=/i.test(hardened)) hardened += "; SameSite=Lax";
  if (secure && !/;\s*secure\s*(;|$)/i.test(hardened)) hardened += "; Secure";
  return hardened;
}

/**
 * Sets the security headers just before the response head is written, so headers the app set
 * itself (the documents' nonce CSP from entry.server.tsx) are kept and never doubled.
 */
export function securityHeaders({ appUrl }: SecurityOptions): RequestHandler {
  const base = baseSecurityHeaders(appUrl);
  const secureCookies = appUrl.startsWith("https://");
  return (req, res, next) => {
    const writeHead = res.writeHead;
    const framedBySelf = FRAMED_BY_SELF.some((pattern) => pattern.test(req.path));
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (!res.headersSent) {
        for (const [name, value] of Object.entries(base)) if (!res.hasHeader(name)) res.setHeader(name, value);
        if (!res.hasHeader("Content-Security-Policy")) res.setHeader("Content-Security-Policy", resourceCsp(framedBySelf));
        if (!res.hasHeader("X-Frame-Options")) res.setHeader("X-Frame-Options", framedBySelf ? "SAMEORIGIN" : "DENY");
        const cookies = res.getHeader("Set-Cookie");
        if (cookies !== undefined) {
          const list = Array.isArray(cookies) ? cookies : [String(cookies)];
          res.setHeader("Set-Cookie", list.map((cookie) => hardenCookie(cookie, secureCookies)));
        }
      }
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as Response["writeHead"];
    next();
  };
}

function originOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).origin;
  } catch {
    return "null";
  }
}

/** `Authorization: Bearer ...` in any case of the scheme (RFC 9110: schemes are case-insensitive). */
export function hasBearerToken(authorization: string | undefined): boolean {
  return /^bearer\s/i.test(authorization ?? "");
}

/**
 * Refuses a state-changing request from another site (CSRF), with or without a session cookie:
 * a forged sign-in (login CSRF) is as bad as a forged action. Browsers say where a request comes
 * from with Sec-Fetch-Site; older ones only with Origin (or Referer). A request with neither is
 * not from a browser page, so it carries nobody's cookies but its sender's. Webhooks are signed
 * and Bearer-token requests are never sent by browsers on their own. Same-origin means the
 * APP_URL origin or the origin the request was sent to (its Host), never a forwarded header.
 */
export function refuseCrossSiteRequests({ appUrl }: SecurityOptions): RequestHandler {
  const appOrigin = new URL(appUrl).origin;
  return (req, res, next) => {
    if (!UNSAFE_METHODS.has(req.method)) return next();
    if (req.path.startsWith("/api/webhooks/")) return next();
    // RFC 8058 one-click unsubscribe: mail providers post from their own systems. The token in
    // the address is the only credential; the action reads no session, so nothing can be forged.
    // Remix refuses an action whose Origin is not its Host on its own (a 500), so the foreign
    // Origin is dropped here, for this path only.
    if (/^\/unsubscribe\/[A-Za-z0-9_-]+\/?$/.test(req.path)) {
      delete req.headers.origin;
      return next();
    }
    if (hasBearerToken(req.headers.authorization)) return next();

    const fetchSite = req.headers["sec-fetch-site"];
    const origin = originOf(req.headers.origin) ?? originOf(req.headers.referer);
    const own = origin !== null && (origin === appOrigin || origin === `${req.protocol}://${req.headers.host ?? ""}`);
    let crossSite: boolean;
    if (fetchSite === "same-origin" || fetchSite === "none") crossSite = origin !== null && !own;
    // A sibling subdomain is another site for us unless it names our own origin.
    else if (fetchSite !== undefined) crossSite = !own;
    else crossSite = origin !== null && !own;
    if (crossSite) return jsonError(res, 403, "Cross-site request refused.");
    next();
  };
}

/** The largest body a request takes (app/utils/body-limits.ts, shared with the routes). */
export function bodyLimitFor(path: string, { postFileMaxBytes }: SecurityOptions, query = new URLSearchParams()): number {
  return routeBodyLimit(path, postFileMaxBytes, query);
}

/** Slowest upload rate a post file may take before its connection is dropped (64 KiB/s). */
const SLOWEST_UPLOAD_BYTES_PER_SECOND = 64 * KIB;

/**
 * Drops the connection of a request whose body has not fully arrived in time: a client
 * trickling a byte now and then must not hold a connection (and a request slot) for minutes.
 * Post-file uploads get the base time plus what their size takes at 64 KiB/s.
 */
export function limitBodyTime(options: SecurityOptions): RequestHandler {
  const base = options.bodyTimeoutMs ?? 30_000;
  return (req, _res, next) => {
    const declared = req.headers["content-length"] === undefined ? null : Number(req.headers["content-length"]);
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (!chunked && !declared) return next();
    const query = new URLSearchParams(req.url.split("?")[1] ?? "");
    const limit = bodyLimitFor(req.path, options, query);
    const fileUpload = uploadKindFor(req.path, query) === "post-file";
    const expected = declared ?? limit;
    const ms = fileUpload ? base + Math.ceil((expected / SLOWEST_UPLOAD_BYTES_PER_SECOND) * 1000) : base;
    const timer = setTimeout(() => {
      if (!req.complete) req.socket.destroy();
    }, ms);
    timer.unref();
    // Keep-alive sockets carry many requests: leave no listener behind on them.
    const clear = () => {
      clearTimeout(timer);
      req.socket.off("close", clear);
    };
    req.once("end", clear);
    req.socket.once("close", clear);
    next();
  };
}

/**
 * Refuses bodies above the path's limit from their declared length, before a byte is read.
 * A body without a declared length (chunked) is only taken by the upload routes, which count
 * the bytes as they stream; elsewhere it is refused with 411.
 */
export function limitBodySize(options: SecurityOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const limit = bodyLimitFor(req.path, options, new URLSearchParams(req.url.split("?")[1] ?? ""));
    const declared = req.headers["content-length"];
    if (declared !== undefined) {
      const length = Number(declared);
      if (!Number.isFinite(length) || length < 0) return jsonError(res, 400, "Invalid Content-Length.");
      if (length > limit) return refuseBody(req, res, 413, "Request body is too large.");
      return next();
    }
    if (req.headers["transfer-encoding"] !== undefined && limit === DEFAULT_BODY_LIMIT) {
      return refuseBody(req, res, 411, "Request body must declare its length.");
    }
    next();
  };
}
