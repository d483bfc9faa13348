// Admission control, per worker: at most MAX_IN_FLIGHT_REQUESTS requests are worked on at once and
// at most MAX_QUEUED_REQUESTS wait for a turn, each no longer than REQUEST_QUEUE_TIMEOUT_MS. Past that a request is
// answered at once with 503 and Retry-After, so an overloaded server says "try again" within a
// moment instead of letting requests wait until clients give up. A request stops counting once
// its answer is ready: a long download's bytes then flow without holding a turn.
import type { Request, RequestHandler, Response } from "express";
import type { IncomingMessage } from "node:http";
import type { Env } from "../app/env.server.ts";
import { runInRequestScope, type RequestScope } from "../app/request-context.server.ts";
import { onRemixAnswer } from "./remix-adapter.ts";
import { closeIfBodyUnread, policyOf } from "./security.ts";

type AdmissionConfig = Pick<Env, "MAX_IN_FLIGHT_REQUESTS" | "MAX_QUEUED_REQUESTS" | "REQUEST_QUEUE_TIMEOUT_MS">;

/**
 * Routes that check passwords (policy `checksPassword`) wait at most this long for a turn, and
 * their password work must answer within PASSWORD_ANSWER_BUDGET_MS of the request's arrival, or
 * they hear "busy" at once: an admitted sign-in is then answered within about 2 s however many
 * arrive (bench/overload.ts), and the hashing a late sign-in would cost is not spent.
 */
export const PASSWORD_ROUTE_QUEUE_WAIT_MS = 250;
export const PASSWORD_ANSWER_BUDGET_MS = 1_000;

/** What a refused request hears (the words of the busy password pool, docs/messages.md). */
export const BUSY_MESSAGE = "The server is busy. Please try again in a few seconds.";
export const BUSY_RETRY_AFTER_SECONDS = 2;

/** The refusal: JSON for the API, a short page for anything else. */
function refuse(req: Request, res: Response) {
  if (res.headersSent || res.destroyed) return;
  closeIfBodyUnread(req, res);
  res.status(503).set({ "Retry-After": String(BUSY_RETRY_AFTER_SECONDS), "Cache-Control": "no-store" });
  if (req.path.startsWith("/api/")) res.json({ error: BUSY_MESSAGE });
  else res.type("html").send(`<!doctype html><html lang="en"><title>Busy</title><h1>The server is busy</h1><p>${BUSY_MESSAGE}</p></html>`);
}

/**
 * A password route's budget counts from the request's arrival, or, when its body was still on the
 * way at admission (a slow connection), from the moment the body has been read: the client's own
 * slowness must not spend the time its password check gets.
 */
function passwordScope(req: IncomingMessage, arrivedAt: number): RequestScope {
  const scope: RequestScope = { passwordAnswerBy: arrivedAt + PASSWORD_ANSWER_BUDGET_MS };
  if (!req.complete) req.once("end", () => (scope.passwordAnswerBy = performance.now() + PASSWORD_ANSWER_BUDGET_MS));
  return scope;
}

/** `exempt`: paths that are always answered at once (health checks). */
export function admissionControl(config: AdmissionConfig, exempt: (path: string) => boolean): RequestHandler {
  const maxInFlight = config.MAX_IN_FLIGHT_REQUESTS;
  let inFlight = 0;
  const queue: { admit: () => void; timer: ReturnType<typeof setTimeout> }[] = [];

  const release = () => {
    inFlight -= 1;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const next = queue.shift()!;
      clearTimeout(next.timer);
      next.admit();
    }
  };

  return (req, res, next) => {
    if (exempt(req.path)) return next();
    const arrivedAt = performance.now();
    const checksPassword = policyOf(res).checksPassword === true;
    const queueTimeoutMs = checksPassword ? Math.min(config.REQUEST_QUEUE_TIMEOUT_MS, PASSWORD_ROUTE_QUEUE_WAIT_MS) : config.REQUEST_QUEUE_TIMEOUT_MS;
    const proceed = checksPassword ? () => runInRequestScope(passwordScope(req, arrivedAt), next) : next;
    const admit = () => {
      // A client that left while it waited frees its turn at once.
      if (res.destroyed || req.socket.destroyed) return;
      inFlight += 1;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        release();
      };
      // Remix's answer is ready (a download's bytes then flow without a turn), or another answer is sent.
      onRemixAnswer(res, finish);
      res.once("finish", finish);
      res.once("close", finish);
      proceed();
    };
    if (inFlight < maxInFlight) return admit();
    if (queue.length >= config.MAX_QUEUED_REQUESTS) return refuse(req, res);
    const entry = {
      admit,
      timer: setTimeout(() => {
        const index = queue.indexOf(entry);
        if (index >= 0) queue.splice(index, 1);
        refuse(req, res);
      }, queueTimeoutMs),
    };
    queue.push(entry);
  };
}
