// The production HTTP server: built assets, public files and the Remix app behind one set of
// HTTP protections (server/security.ts). Replaces remix-serve, which offers no middleware.
import { readdirSync } from "node:fs";
import path from "node:path";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { routePolicies } from "./route-policy.ts";
import { findRoutePolicy, limitBody, refuseCrossSiteRequests, requireHost, securityHeaders, pinAppOrigin, type SecurityOptions } from "./security.ts";

export type AppOptions = SecurityOptions & {
  build: ServerBuild;
  /** Folder of the built browser assets (build.assetsBuildDirectory resolved by the caller). */
  assetsDir: string;
  publicDir: string;
  mode: string;
  /** One line per request on stdout. */
  log: boolean;
};

/** What entry.server.tsx offers the HTTP server besides rendering (app/document-cache.server.ts). */
export type SharedPagesEntry = {
  sharedPageAnswer?: typeof import("../app/document-cache.server.ts").sharedPageAnswer;
  sharedPagesSince?: () => number;
};

/** The guest-page cache of a build's entry module, or nothing for a build without one. */
export function sharedPagesOf(build: ServerBuild): SharedPagesEntry {
  return build.entry.module as unknown as SharedPagesEntry;
}

/**
 * A guest's GET of a page answered moments ago is answered from that copy, without running
 * Remix. The app decides what is kept and when it is stale (app/document-cache.server.ts: a write
 * to what guests see, noticed where every write passes, or a second gone by).
 */
export function reuseSharedPages(entry: SharedPagesEntry): express.RequestHandler {
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const { cookie, authorization, "if-none-match": ifNoneMatch, "accept-encoding": acceptEncoding } = req.headers;
    const answer = entry.sharedPageAnswer?.(req.originalUrl, { cookie, authorization, ifNoneMatch, acceptEncoding });
    if (!answer) return next();
    res.status(answer.status);
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    if (answer.body === null || req.method === "HEAD") {
      res.removeHeader("Content-Length");
      res.end();
    } else {
      res.setHeader("Content-Length", answer.body.length);
      res.end(answer.body);
    }
  };
}

export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Client addresses and protocol come from the socket, never from X-Forwarded-* headers
  // (rate limits read CLIENT_IP_HEADER themselves, only when a proxy we run sets it).
  app.set("trust proxy", false);
  // Remix reads the query from the URL itself; express need not parse it for every request.
  app.set("query parser", false);

  app.use(securityHeaders(options));
  app.use(requireHost());
  // Files are sent as stored: a download (an attachment, or anything that takes Range requests)
  // keeps its Content-Length, its validator and byte ranges that count the file's own bytes.
  app.use(compression({ filter: (req, res) => !res.getHeader("Content-Disposition") && !res.getHeader("Accept-Ranges") && compression.filter(req, res) }));
  app.use(options.build.publicPath, express.static(options.assetsDir, { immutable: true, maxAge: "1y" }));
  // The few files of public/ (favicon, logo) are listed once: every other request skips the
  // file-system lookup that express.static would make for it.
  const publicFiles = listPublicFiles(options.publicDir, options.assetsDir);
  const servePublic = express.static(options.publicDir, { maxAge: "1h", index: false });
  app.use((req, res, next) => (publicFiles.has(req.path) ? servePublic(req, res, next) : next()));
  if (options.log) app.use(requestLog);
  app.use(findRoutePolicy(routePolicies(options.build)));
  app.use(limitBody(options));
  app.use(refuseCrossSiteRequests(options));
  app.use(pinAppOrigin(options));
  const sharedPages = sharedPagesOf(options.build);
  app.use(reuseSharedPages(sharedPages));
  app.all(
    "*",
    createRequestHandler({
      build: options.build,
      mode: options.mode,
      // The connection's own address for per-address rate limits (trust proxy is off, so this is
      // never a forwarded header; CLIENT_IP_HEADER is read by the app itself when configured).
      // sharedPagesSince: when the request started, so a page read before a change is not kept after it.
      getLoadContext: (req) => ({ clientAddress: req.socket.remoteAddress ?? null, sharedPagesSince: sharedPages.sharedPagesSince?.() }),
    }),
  );
  return app;
}

/**
 * One line per request on stdout when its response is done: method, URL, status (or "aborted"),
 * body size and time, e.g. `GET /library 200 48213 - 12.4 ms`. Written here rather than with
 * morgan("tiny"), whose header and finish hooks cost about 10% of the listing benchmark's throughput.
 */
const requestLog: express.RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.once("close", () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const status = res.writableFinished ? String(res.statusCode) : "aborted";
    process.stdout.write(`${req.method} ${req.originalUrl} ${status} ${res.getHeader("Content-Length") ?? "-"} - ${ms.toFixed(1)} ms\n`);
  });
  next();
};

/** URL paths of the files in public/, without the built assets (served above with their own rules). */
function listPublicFiles(publicDir: string, assetsDir: string): Set<string> {
  const files = new Set<string>();
  for (const entry of readdirSync(publicDir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || file.startsWith(assetsDir + path.sep)) continue;
    files.add(`/${path.relative(publicDir, file).split(path.sep).map(encodeURIComponent).join("/")}`);
  }
  return files;
}
