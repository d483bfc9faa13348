// Admission control, per worker: at most `maxInFlight` requests are worked on at once and at
// most `maxQueued` wait for a turn, each no longer than `queueTimeoutMs`. Past that a request is
// answered at once with 503 and Retry-After, so an overloaded server says "try again" within a
// moment instead of letting requests wait until clients give up. A request stops counting once
// its response head is written: a long download's bytes then flow without holding a turn.
import type { Request, RequestHandler, Response } from "express";
import { runInRequestScope } from "../app/request-context.server.ts";
import { policyOf } from "./security.ts";

export type AdmissionOptions = {
  maxInFlight: number;
  maxQueued: number;
  queueTimeoutMs: number;
  /** Paths that are always answered at once (health checks). */
  exempt?: (path: string) => boolean;
};

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
  res.status(503).set({ "Retry-After": String(BUSY_RETRY_AFTER_SECONDS), "Cache-Control": "no-store" });
  if (req.path.startsWith("/api/")) res.json({ error: BUSY_MESSAGE });
  else res.type("html").send(`<!doctype html><html lang="en"><title>Busy</title><h1>The server is busy</h1><p>${BUSY_MESSAGE}</p></html>`);
}

export function admissionControl(options: AdmissionOptions): RequestHandler {
  let inFlight = 0;
  const queue: { admit: () => void; timer: ReturnType<typeof setTimeout> }[] = [];

  const release = () => {
    inFlight -= 1;
    while (queue.length > 0 && inFlight < options.maxInFlight) {
      const next = queue.shift()!;
      clearTimeout(next.timer);
      next.admit();
    }
  };

  return (req, res, next) => {
    if (options.exempt?.(req.path)) return next();
    const arrivedAt = performance.now();
    const checksPassword = policyOf(res).checksPassword === true;
    const queueTimeoutMs = checksPassword ? Math.min(options.queueTimeoutMs, PASSWORD_ROUTE_QUEUE_WAIT_MS) : options.queueTimeoutMs;
    const proceed = checksPassword ? () => runInRequestScope({ passwordAnswerBy: arrivedAt + PASSWORD_ANSWER_BUDGET_MS }, next) : next;
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
      // Bound to this response: the wrapper below is only ever called as its method.
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => Response;
      res.writeHead = function (this: Response, ...args: unknown[]) {
        const result = writeHead(...args);
        finish();
        return result;
      } as Response["writeHead"];
      res.once("close", finish);
      proceed();
    };
    if (inFlight < options.maxInFlight) return admit();
    if (queue.length >= options.maxQueued) return refuse(req, res);
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
