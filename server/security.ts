// HTTP protections for every request: a Host that is a host, security headers, no cross-site
// state changes, body size and time caps. What differs by route comes from the policy of the
// route that will run (server/route-policy.ts). Business rules stay in app/models.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Env } from "../app/env.server.ts";
import type { RequestPolicy } from "../app/request-policy.server.ts";
import { isCrossSite, responseSecurityHeaders } from "../app/security.server.ts";
import { DEFAULT_BODY_LIMIT, maxFileBytes, MULTIPART_OVERHEAD } from "../app/utils/body-limits.ts";

const KIB = 1024;

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** APP_URL: its origin may post, https turns on HSTS; a body's time and an upload's size cap. */
type SecurityConfig = Pick<Env, "APP_URL" | "REQUEST_BODY_TIMEOUT_MS" | "POST_FILE_MAX_BYTES">;

/** The policy the route that will answer this request declared (set by `routeAndSecurityHeaders`). */
export function policyOf(res: Response): RequestPolicy {
  return (res.locals.policy as RequestPolicy | undefined) ?? {};
}

/** The id of the route that will answer this request (`routes/library`), or null when none matches. */
export function routeIdOf(res: Response): string | null {
  return (res.locals.routeId as string | null | undefined) ?? null;
}

/**
 * Looks up the route that will answer (for the checks below and the request's log line) and sets
 * the headers every response carries (app/security.server.ts); Remix's own replace them
 * (server/remix-adapter.ts).
 */
export function routeAndSecurityHeaders(
  { APP_URL: appUrl }: SecurityConfig,
  routeFor: (pathname: string) => { routeId: string | null; policy: RequestPolicy },
): RequestHandler {
  const headers = { framed: responseSecurityHeaders(appUrl, { framedBySelf: true }), unframed: responseSecurityHeaders(appUrl) };
  return (req, res, next) => {
    const { routeId, policy } = routeFor(req.path);
    res.locals.routeId = routeId;
    res.locals.policy = policy;
    for (const [name, value] of Object.entries(policy.framedBySelf ? headers.framed : headers.unframed)) res.setHeader(name, value);
    next();
  };
}

/**
 * Called by whatever answers, before the head goes out: an answer sent before the body has
 * arrived closes the connection, so the rest is never read, unless it is an admitted upload
 * (its rest is read and dropped, so its sender sees the answer).
 */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (!req.complete && hasBody(req) && res.locals.admittedUpload !== true) res.setHeader("Connection", "close");
}

/** The request's headers as Fetch headers (a repeated header keeps every value). */
export function fetchHeaders(req: Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

function jsonError(req: Request, res: Response, status: number, error: string) {
  closeIfBodyUnread(req, res);
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
    if (host !== undefined && !HOST_PATTERN.test(host)) return jsonError(req, res, 400, "Invalid Host header.");
    delete req.headers["x-forwarded-host"];
    next();
  };
}

/** Refuses state changes sent from another site (app/security.server.ts), unless the route's policy allows them (signed webhooks, one-click unsubscribe). */
export function refuseCrossSiteRequests(config: SecurityConfig): RequestHandler {
  const appOrigin = new URL(config.APP_URL).origin;
  return (req, res, next) => {
    if (!UNSAFE_METHODS.has(req.method) || policyOf(res).crossSiteAllowed) return next();
    const { origin, referer, authorization } = req.headers;
    const fetchSite = req.get("Sec-Fetch-Site");
    if (isCrossSite({ fetchSite, origin, referer, authorization }, [appOrigin, `${req.protocol}://${req.headers.host ?? ""}`])) {
      return jsonError(req, res, 403, "Cross-site request refused.");
    }
    next();
  };
}

/** Slowest upload rate an admitted upload may take before its connection is dropped (64 KiB/s). */
const SLOWEST_UPLOAD_BYTES_PER_SECOND = 64 * KIB;

function isMultipart(req: Request): boolean {
  return /^multipart\/form-data\s*;/i.test(req.headers["content-type"] ?? "");
}

/**
 * Caps every body before a byte is read: 1 MiB with a declared length. Only a multipart upload to
 * a route that takes uploads, from someone its `allowed` admits by the headers alone, may be
 * larger or chunked (the route counts its bytes). Every body must arrive within the base time; an
 * admitted upload gets what its size takes at 64 KiB/s on top.
 */
export function limitBody(config: SecurityConfig): RequestHandler {
  const base = config.REQUEST_BODY_TIMEOUT_MS;
  const appOrigin = new URL(config.APP_URL).origin;
  const check = async (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const header = req.headers["content-length"];
    const declared = header === undefined ? null : Number(header);
    if (declared !== null && (!Number.isSafeInteger(declared) || declared < 0)) return jsonError(req, res, 400, "Invalid Content-Length.");

    const upload = policyOf(res).upload;
    let limit = DEFAULT_BODY_LIMIT;
    let admitted = false;
    // A resumable upload's part is sent raw (application/octet-stream), every other upload as multipart.
    if (upload && (declared === null || declared > DEFAULT_BODY_LIMIT) && (upload.kind === "post-file-part" || isMultipart(req))) {
      // The route's `allowed` check sees the request's address and headers, never its body.
      admitted = await upload.allowed(new globalThis.Request(appOrigin + req.originalUrl, { headers: fetchHeaders(req) })).catch(() => false);
      if (admitted) limit = maxFileBytes(upload.kind, config.POST_FILE_MAX_BYTES) + (upload.kind === "post-file-part" ? 0 : MULTIPART_OVERHEAD);
      res.locals.admittedUpload = admitted;
    }
    if (declared !== null && declared > limit) return jsonError(req, res, 413, "Request body is too large.");
    if (declared === null && !admitted) return jsonError(req, res, 411, "Request body must declare its length.");

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
  return (req, res, next) => void check(req, res, next).catch(next);
}
