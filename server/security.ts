// HTTP protections for every request: a Host that is a host, security headers, no cross-site
// state changes, body size and time caps, by the policy of the route that will run (server/route-policy.ts).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Env } from "../app/env.server.ts";
import type { RequestPolicy } from "../app/request-policy.server.ts";
import { isCrossSite, responseSecurityHeaders } from "../app/security.server.ts";
import { DEFAULT_BODY_LIMIT, maxFileBytes, MULTIPART_OVERHEAD } from "../app/utils/body-limits.ts";

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** APP_URL: its origin may post, https turns on HSTS; a body's time and an upload's size cap. */
type SecurityConfig = Pick<Env, "APP_URL" | "REQUEST_BODY_TIMEOUT_MS" | "POST_FILE_MAX_BYTES">;

/** The policy the route that will answer this request declared (set by `routeAndSecurityHeaders`). */
export const policyOf = (res: Response): RequestPolicy => (res.locals.policy as RequestPolicy | undefined) ?? {};

/** The id of the route that will answer this request (`routes/library`), or null when none matches. */
export const routeIdOf = (res: Response): string | null => (res.locals.routeId as string | null | undefined) ?? null;

/** Notes the route that will answer and its policy, and sets the headers every response carries (Remix's own replace them). */
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

/** Before the head goes out: an answer sent before the body arrived closes the connection, unless for an admitted upload (its rest is read and dropped). */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (!req.complete && hasBody(req) && res.locals.admittedUpload !== true) res.setHeader("Connection", "close");
}

/** The request's headers as Fetch headers (a repeated header keeps every value). */
export function fetchHeaders(req: Request): Headers {
  return new Headers(Object.entries(req.headers).flatMap(([name, value]) => [value ?? []].flat().map((item): [string, string] => [name, item])));
}

function jsonError(req: Request, res: Response, status: number, error: string) {
  closeIfBodyUnread(req, res);
  res.status(status).set("Cache-Control", "no-store").json({ error });
}

/** A declared length above 0, or chunks. */
const hasBody = (req: Request) => req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";

/** A host name or address with an optional port, and nothing else (not a path, not a fragment). */
const HOST_PATTERN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Refuses a Host that is not a host; drops X-Forwarded-Host, which no proxy of ours sets. */
export function requireHost(): RequestHandler {
  return (req, res, next) => {
    if (req.headers.host !== undefined && !HOST_PATTERN.test(req.headers.host)) return jsonError(req, res, 400, "Invalid Host header.");
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
    const ours = [appOrigin, `${req.protocol}://${req.headers.host ?? ""}`];
    if (isCrossSite({ fetchSite: req.get("Sec-Fetch-Site"), origin, referer, authorization }, ours))
      return jsonError(req, res, 403, "Cross-site request refused.");
    next();
  };
}

/** Slowest rate an admitted upload may take before its connection is dropped. */
const SLOWEST_UPLOAD_BYTES_PER_SECOND = 64 * 1024;

/**
 * Caps every body before a byte is read: 1 MiB with a declared length. Only an upload to a route
 * that takes uploads (a raw part, or multipart) from someone it admits by the headers alone may be
 * larger or chunked (the route counts its bytes); anyone else hears the route's refusal (401, 403).
 * Every body must arrive within the base time; an admitted upload gets its size at 64 KiB/s on top.
 */
export function limitBody(config: SecurityConfig): RequestHandler {
  const appOrigin = new URL(config.APP_URL).origin;
  const check = async (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const header = req.headers["content-length"];
    const declared = header === undefined ? null : Number(header);
    if (declared !== null && (!Number.isSafeInteger(declared) || declared < 0)) return jsonError(req, res, 400, "Invalid Content-Length.");
    const upload = policyOf(res).upload;
    let limit = DEFAULT_BODY_LIMIT;
    let admitted = false;
    const multipart = /^multipart\/form-data\s*;/i.test(req.headers["content-type"] ?? "");
    if (upload && (declared === null || declared > DEFAULT_BODY_LIMIT) && (upload.kind === "post-file-part" || multipart)) {
      const refused = await upload.refusal(new globalThis.Request(appOrigin + req.originalUrl, { headers: fetchHeaders(req) }));
      if (refused) return (res.set(refused.headers), jsonError(req, res, refused.status, refused.error));
      limit = maxFileBytes(upload.kind, config.POST_FILE_MAX_BYTES) + (upload.kind === "post-file-part" ? 0 : MULTIPART_OVERHEAD);
      admitted = res.locals.admittedUpload = true;
    }
    if (declared !== null && declared > limit) return jsonError(req, res, 413, "Request body is too large.");
    if (declared === null && !admitted) return jsonError(req, res, 411, "Request body must declare its length.");
    const ms = config.REQUEST_BODY_TIMEOUT_MS + (admitted ? Math.ceil(((declared ?? limit) / SLOWEST_UPLOAD_BYTES_PER_SECOND) * 1000) : 0);
    const timer = setTimeout(() => req.complete || req.socket.destroy(), ms).unref();
    // Keep-alive sockets carry many requests: leave no listener behind on them.
    const clear = () => (clearTimeout(timer), req.socket.off("close", clear));
    req.once("end", clear);
    req.socket.once("close", clear);
    next();
  };
  return (req, res, next) => void check(req, res, next).catch(next);
}
