// GET /metrics: the Prometheus text of the whole server (app/metrics-cluster.server.ts), before the app runs.
import type { RequestHandler } from "express";
import { register } from "prom-client";
import { METRICS_REFUSED_MESSAGE, metricsAllowed, serverMetrics } from "../app/metrics-cluster.server.ts";

export function serveMetrics({ token }: { token: string | undefined }): RequestHandler {
  return (req, res, next) => {
    if (req.path !== "/metrics") return next();
    res.set("Cache-Control", "no-store");
    if (!metricsAllowed(req.socket.remoteAddress, req.headers.authorization, token)) return res.status(403).json({ error: METRICS_REFUSED_MESSAGE });
    if (req.method !== "GET" && req.method !== "HEAD") return res.status(405).set("Allow", "GET, HEAD").json({ error: "Method not allowed." });
    serverMetrics().then(
      (text) => res.set("Content-Type", register.contentType).send(text),
      () => res.status(503).set("Retry-After", "5").json({ error: "Metrics are unavailable right now." }),
    );
  };
}
