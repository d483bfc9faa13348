// Admission control, per worker: at most MAX_IN_FLIGHT_REQUESTS requests at once and MAX_QUEUED_REQUESTS
// waiting, each for at most REQUEST_QUEUE_TIMEOUT_MS; past that, 503 with Retry-After at once. A request
// stops counting once its answer is ready (a download's bytes flow without a turn).
import type { Request, RequestHandler, Response } from "express";
import { BUSY_MESSAGE, BUSY_RETRY_AFTER_SECONDS, busyPage } from "../app/busy-answer.server.ts";
import type { Env } from "../app/env.server.ts";
import { currentRequestScope, runInRequestScope } from "../app/request-context.server.ts";
import { onRemixAnswer } from "./remix-adapter.ts";
import { closeIfBodyUnread, policyOf } from "./security.ts";

type AdmissionConfig = Pick<Env, "MAX_IN_FLIGHT_REQUESTS" | "MAX_QUEUED_REQUESTS" | "REQUEST_QUEUE_TIMEOUT_MS">;

/**
 * Password routes (policy `checksPassword`) wait at most this long for a turn and must answer within the
 * budget of their arrival, or hear "busy": an admitted sign-in answers within about 2 s (bench/overload.ts).
 */
export const PASSWORD_ROUTE_QUEUE_WAIT_MS = 250;
export const PASSWORD_ANSWER_BUDGET_MS = 1_000;

/** The refusal: JSON for the API, a short page with the request's id for anything else. */
function refuse(req: Request, res: Response) {
  if (res.headersSent || res.destroyed) return;
  closeIfBodyUnread(req, res);
  res.status(503).set({ "Retry-After": String(BUSY_RETRY_AFTER_SECONDS), "Cache-Control": "no-store" });
  if (req.path.startsWith("/api/")) res.json({ error: BUSY_MESSAGE });
  else res.type("html").send(busyPage(String(res.getHeader("X-Request-Id") ?? "")));
}

/** `exempt`: paths always answered at once (health checks). */
export function admissionControl(config: AdmissionConfig, exempt: (path: string) => boolean): RequestHandler {
  const maxInFlight = config.MAX_IN_FLIGHT_REQUESTS;
  let inFlight = 0;
  const waiting = new Set<{ admit: () => void; timer: ReturnType<typeof setTimeout> }>();
  const release = () => {
    inFlight -= 1;
    for (const entry of waiting) {
      if (inFlight >= maxInFlight) break;
      waiting.delete(entry);
      clearTimeout(entry.timer);
      entry.admit();
    }
  };
  return (req, res, next) => {
    if (exempt(req.path)) return next();
    const arrivedAt = performance.now();
    const checksPassword = policyOf(res).checksPassword === true;
    const queueTimeoutMs = checksPassword ? Math.min(config.REQUEST_QUEUE_TIMEOUT_MS, PASSWORD_ROUTE_QUEUE_WAIT_MS) : config.REQUEST_QUEUE_TIMEOUT_MS;
    // The request's scope (server/observe.ts): a password route's budget counts from its arrival, or from
    // when its body has been read if it was still on the way.
    const scope = currentRequestScope();
    if (checksPassword && scope) scope.passwordAnswerBy = arrivedAt + PASSWORD_ANSWER_BUDGET_MS;
    if (checksPassword && scope && !req.complete) req.once("end", () => (scope.passwordAnswerBy = performance.now() + PASSWORD_ANSWER_BUDGET_MS));
    const admit = () => {
      if (res.destroyed || req.socket.destroyed) return; // a client that left while it waited
      inFlight += 1;
      let done = false;
      const finish = () => void (done || ((done = true), release()));
      onRemixAnswer(res, finish);
      res.once("finish", finish);
      res.once("close", finish);
      next();
    };
    if (inFlight < maxInFlight) return admit();
    if (waiting.size >= config.MAX_QUEUED_REQUESTS) return refuse(req, res);
    // Admitted when another request ends, it goes on in its own scope, not the one that ended.
    const resume = scope ? () => runInRequestScope(scope, admit) : admit;
    const entry = { admit: resume, timer: setTimeout(() => (waiting.delete(entry), refuse(req, res)), queueTimeoutMs) };
    waiting.add(entry);
  };
}
