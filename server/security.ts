// HTTP protections for every request: a Host that is a host, security headers, no cross-site
// state changes, body size and time caps. What differs by route comes from the policy of the
// route that will run (server/route-policy.ts). Business rules stay in app/models.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { RequestPolicy } from "../app/request-policy.server.ts";
import { responseSecurityHeaders } from "../app/security.server.ts";
import { DEFAULT_BODY_LIMIT, maxFileBytes, MULTIPART_OVERHEAD } from "../app/utils/body-limits.ts";

const KIB = 1024;

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type SecurityOptions = {
  /** Time a request body may take to arrive (admitted uploads: more, by their size). */
  bodyTimeoutMs?: number;
  /** The public address of the site (APP_URL): its origin may post, https turns on HSTS. */
  appUrl: string;
  /** Largest post file an admin may upload (POST_FILE_MAX_BYTES). */
  postFileMaxBytes: number;
};

/** The policy the route that will answer this request declared (set by `findRoutePolicy`). */
export function policyOf(res: Response): RequestPolicy {
  return (res.locals.policy as RequestPolicy | undefined) ?? {};
}

/** The id of the route that will answer this request (`routes/library`), or null when none matches. */
export function routeIdOf(res: Response): string | null {
  return (res.locals.routeId as string | null | undefined) ?? null;
}

/** Looks up the route and its policy once per request, for the checks below and the request's log line. */
export function findRoutePolicy(routeFor: (pathname: string) => { routeId: string | null; policy: RequestPolicy }): RequestHandler {
  return (req, res, next) => {
    const { routeId, policy } = routeFor(req.path);
    res.locals.routeId = routeId;
    res.locals.policy = policy;
    next();
  };
}

function jsonError(res: Response, status: number, error: string) {
  res.status(status).set("Cache-Control", "no-store").json({ error });
}

/** Does the request carry a body (a declared length above 0, or chunks)? */
function hasBody(req: Request): boolean {
  const declared = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (declared !== undefined && declared !== "0");
}

/** A Host header that is a host name or address with an optional port, and nothing else. */
const HOST_PATTERN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Refuses a Host that is not a host (a path, a fragment); drops X-Forwarded-Host, which no proxy of ours sets. */
export function requireHost(): RequestHandler {
  return (req, res, next) => {
    const host = req.headers.host;
    if (host !== undefined && !HOST_PATTERN.test(host)) return jsonError(res, 400, "Invalid Host header.");
    delete req.headers["x-forwarded-host"];
    next();
  };
}

/**
 * Remix builds its URL from APP_URL's origin plus the path, never from what the client sent. Runs
 * after the cross-site check has judged Origin, so Remix's own Origin check has nothing to compare.
 */
export function pinAppOrigin({ appUrl }: SecurityOptions): RequestHandler {
  const { host, protocol } = new URL(appUrl);
  const scheme = protocol.slice(0, -1);
  return (req, _res, next) => {
    req.headers.host = host;
    Object.defineProperty(req, "protocol", { value: scheme, configurable: true });
    delete req.headers.origin;
    next();
  };
}

/**
 * Adds the headers every response carries (app/security.server.ts) as the head is written, so one
 * the app set itself (a document's CSP) is kept, never doubled. An answer sent before the body
 * has arrived closes the connection, so the rest is never read, unless it is an admitted upload.
 */
export function securityHeaders({ appUrl }: SecurityOptions): RequestHandler {
  const headers = { framed: responseSecurityHeaders(appUrl, { framedBySelf: true }), unframed: responseSecurityHeaders(appUrl) };
  return (req, res, next) => {
    // Bound to this response: the wrapper below is only ever called as its method.
    const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => Response;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (!res.headersSent) {
        const own = policyOf(res).framedBySelf ? headers.framed : headers.unframed;
        for (const [name, value] of Object.entries(own)) if (!res.hasHeader(name)) res.setHeader(name, value);
        // An admitted upload's rest is read and dropped instead, so its sender sees the answer.
        if (!req.complete && hasBody(req) && res.locals.admittedUpload !== true) {
          res.setHeader("Connection", "close");
          res.once("finish", () => req.socket.destroySoon());
        }
      }
      return writeHead(...args);
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
 * Refuses state changes sent from another site (CSRF, login CSRF included), judged by
 * Sec-Fetch-Site, else Origin or Referer; a request with neither is not from a browser page.
 * Exempt: routes whose policy allows it (signed webhooks, one-click unsubscribe) and Bearer
 * tokens, which browsers never send on their own. Own origin: APP_URL's, or the Host's.
 */
export function refuseCrossSiteRequests({ appUrl }: SecurityOptions): RequestHandler {
  const appOrigin = new URL(appUrl).origin;
  return (req, res, next) => {
    if (!UNSAFE_METHODS.has(req.method)) return next();
    if (policyOf(res).crossSiteAllowed) return next();
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

/** Slowest upload rate an admitted upload may take before its connection is dropped (64 KiB/s). */
const SLOWEST_UPLOAD_BYTES_PER_SECOND = 64 * KIB;

function isMultipart(req: Request): boolean {
  return /^multipart\/form-data\s*;/i.test(req.headers["content-type"] ?? "");
}

/** The request as the route's `allowed` check sees it: its address and headers, never its body. */
function headersOnly(req: Request, appOrigin: string): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(appOrigin + req.originalUrl, { headers });
}

/**
 * Caps every body before a byte is read: 1 MiB with a declared length. Only a multipart upload to
 * a route that takes uploads, from someone its `allowed` admits by the headers alone, may be
 * larger or chunked (the route counts its bytes). Every body must arrive within the base time; an
 * admitted upload gets what its size takes at 64 KiB/s on top.
 */
export function limitBody(options: SecurityOptions): RequestHandler {
  const base = options.bodyTimeoutMs ?? 30_000;
  const appOrigin = new URL(options.appUrl).origin;
  const admit = async (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const header = req.headers["content-length"];
    const declared = header === undefined ? null : Number(header);
    if (declared !== null && (!Number.isSafeInteger(declared) || declared < 0)) return jsonError(res, 400, "Invalid Content-Length.");

    const upload = policyOf(res).upload;
    let limit = DEFAULT_BODY_LIMIT;
    let admitted = false;
    // A resumable upload's part is sent raw (application/octet-stream), every other upload as multipart.
    if (upload && (declared === null || declared > DEFAULT_BODY_LIMIT) && (upload.kind === "post-file-part" || isMultipart(req))) {
      admitted = await upload.allowed(headersOnly(req, appOrigin)).catch(() => false);
      if (admitted) limit = maxFileBytes(upload.kind, options.postFileMaxBytes) + (upload.kind === "post-file-part" ? 0 : MULTIPART_OVERHEAD);
      res.locals.admittedUpload = admitted;
    }
    if (declared !== null && declared > limit) return jsonError(res, 413, "Request body is too large.");
    if (declared === null && !admitted) return jsonError(res, 411, "Request body must declare its length.");

    const ms = admitted ? base + Math.ceil(((declared ?? limit) / SLOWEST_UPLOAD_BYTES_PER_SECOND) * 1000) : base;
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
  // Express 4 does not await a middleware: a failure goes to `next` instead of going unhandled.
  return (req, res, next) => void admit(req, res, next).catch(next);
}
