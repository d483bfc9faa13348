// Hands an Express request to Remix on APP_URL's origin (never the client's Host) and writes its
// answer, whose headers replace those of the same name set before (the security defaults).
import { createReadableStreamFromReadable, createRequestHandler, writeReadableStreamToWritable, type ServerBuild } from "@remix-run/node";
import type { Request, RequestHandler, Response } from "express";
import { DATABASE_RETRY_AFTER_SECONDS } from "../app/utils/errors.ts";
import { closeIfBodyUnread, fetchHeaders } from "./security.ts";

/** Runs `fn` once Remix's answer is ready, before its body flows (server/admission.ts frees the turn). */
export function onRemixAnswer(res: Response, fn: () => void): void {
  ((res.locals.onRemixAnswer as (() => void)[] | undefined) ??= []).push(fn);
}

/** The load context carries the client's address and the reader lookup of server/app.ts's kept pages. */
export function remixHandler(build: ServerBuild | (() => Promise<ServerBuild>), mode: string, app: URL): RequestHandler {
  const handle = createRequestHandler(build, mode);
  const answer = async (req: Request, res: Response) => {
    if (res.closed) return; // the client left before Remix's turn: nothing to answer
    const controller = new AbortController();
    res.once("close", () => res.writableFinished || controller.abort());
    const headers = fetchHeaders(req);
    headers.set("Host", app.host);
    headers.delete("Origin"); // judged by refuseCrossSiteRequests already
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : createReadableStreamFromReadable(req);
    const request = new globalThis.Request(app.origin + req.originalUrl, { method: req.method, headers, body, signal: controller.signal, duplex: "half" });
    const response = await handle(request, { clientAddress: req.socket.remoteAddress ?? null, readerLookup: (res.locals.keptLookup as unknown) ?? null });
    for (const fn of (res.locals.onRemixAnswer as (() => void)[] | undefined) ?? []) fn();
    closeIfBodyUnread(req, res);
    if (response.statusText) res.statusMessage = response.statusText;
    res.status(response.status);
    for (const name of new Set(response.headers.keys())) res.removeHeader(name);
    for (const [name, value] of response.headers) {
      if (name === "content-type") res.set(name, value);
      else res.appendHeader(name, value);
    }
    // Every 503 says when to try again, a route that failed while the database was down too.
    if (response.status === 503 && !response.headers.has("Retry-After")) res.setHeader("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
    // With backpressure; the source is cancelled when the client goes away (patches/@remix-run+node).
    if (response.body) await writeReadableStreamToWritable(response.body, res);
    else res.end();
  };
  return (req, res, next) => void answer(req, res).catch(next);
}
