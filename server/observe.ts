// What every request leaves behind: its own id (X-Request-Id), its duration in the metrics by route and status, and
// with REQUEST_LOG a JSON log line (with the signed-in account); and GET /metrics, the whole server's Prometheus text
// (app/metrics-cluster.server.ts), answered before the app runs: logged as route "metrics", not counted (a scrape would count itself).
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { register } from "prom-client";
import { log } from "../app/logger.server.ts";
import { METRICS_REFUSED_MESSAGE, metricsAllowed, serverMetrics } from "../app/metrics-cluster.server.ts";
import { requestDuration, serverErrors } from "../app/metrics.server.ts";
import { runInRequestScope, type RequestScope } from "../app/request-context.server.ts";
import { routeIdOf } from "./security.ts";

export function serveMetrics({ token }: { token: string | undefined }): RequestHandler {
  return (req, res, next) => {
    if (req.path !== "/metrics") return next();
    res.locals.routeId = "metrics";
    res.set("Cache-Control", "no-store");
    if (!metricsAllowed(req.socket.remoteAddress, req.headers.authorization, token)) return res.status(403).json({ error: METRICS_REFUSED_MESSAGE });
    if (req.method !== "GET" && req.method !== "HEAD") return res.status(405).set("Allow", "GET, HEAD").json({ error: "Method not allowed." });
    serverMetrics().then(
      (text) => res.set("Content-Type", register.contentType).send(text),
      () => res.status(503).set("Retry-After", "5").json({ error: "Metrics are unavailable right now." }),
    );
  };
}

export function observeRequests({ logRequests }: { logRequests: boolean }): RequestHandler {
  const duration = requestDuration();
  const errors = serverErrors();
  const logger = log();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Always our own: a client's X-Request-Id could forge or collide with another request's.
    const requestId = randomUUID();
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);
    // The rest of the request runs in its scope: every line logged meanwhile names it, and the app notes its account there.
    const scope: RequestScope = { requestId };
    res.once("close", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = routeIdOf(res) ?? "none";
      const finished = res.writableFinished;
      const status = finished ? String(res.statusCode) : "aborted";
      const { accountId } = scope;
      if (route !== "metrics") {
        duration.observe({ route, status }, ms / 1000);
        if (res.statusCode >= 500) errors.inc({ route, status: String(res.statusCode) });
      }
      if (!logRequests) return;
      // The path only: a query may carry a signature or a token. One decimal always ("512.0 ms"), so a duration never reads as a status.
      const durationMs = Math.round(ms * 10) / 10;
      const line = { requestId, method: req.method, path: req.path, route, status: res.statusCode, durationMs, accountId, aborted: !finished || undefined };
      const message = `${req.method} ${req.path} ${status} ${ms.toFixed(1)} ms`;
      // 503 + Retry-After says "come back" (busy, or a part down that logs its own error): a warning.
      logger[res.statusCode === 503 && res.hasHeader("Retry-After") ? "warn" : res.statusCode >= 500 ? "error" : "info"](line, message);
    });
    runInRequestScope(scope, next);
  };
}
