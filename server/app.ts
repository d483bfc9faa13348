// The production HTTP server: built assets, public files and the Remix app behind one set of
// HTTP protections (server/security.ts).
import { readdirSync } from "node:fs";
import path from "node:path";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { admissionControl, type AdmissionOptions } from "./admission.ts";
import { serveMetrics } from "./metrics.ts";
import { observeRequests } from "./observe.ts";
import { routePolicies } from "./route-policy.ts";
import { findRoutePolicy, limitBody, refuseCrossSiteRequests, requireHost, securityHeaders, pinAppOrigin, type SecurityOptions } from "./security.ts";

export type AppOptions = SecurityOptions & {
  build: ServerBuild;
  /** Folder of the built browser files (build.assetsBuildDirectory resolved by the caller); its assets/ holds the hashed scripts and styles. */
  assetsDir: string;
  publicDir: string;
  mode: string;
  /** One JSON log line per request on stdout (server/observe.ts). */
  log: boolean;
  /** With it, /metrics also answers `Authorization: Bearer <token>` from other machines (METRICS_TOKEN). */
  metricsToken?: string;
  /** How many requests this process works on and queues at once (server/admission.ts); unset, no limit. */
  admission?: Omit<AdmissionOptions, "exempt">;
  /**
   * `npm run dev` (server/dev.ts): Vite's middleware serves the app's modules and assets, and the
   * build is loaded again for every request, so an edit shows without a restart.
   */
  dev?: { middlewares: express.RequestHandler; loadBuild: () => Promise<ServerBuild> };
};

/** The guest-page cache entry.server.tsx exports (app/document-cache.server.ts), if the build has one. */
export type SharedPagesEntry = {
  sharedPageAnswer?: typeof import("../app/document-cache.server.ts").sharedPageAnswer;
  sharedPagesSince?: () => number;
};

/** A guest's GET of a page answered moments ago gets that copy, without running Remix; the app decides what is fresh. */
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
  // Addresses come from the socket, never X-Forwarded-* (rate limits read CLIENT_IP_HEADER when configured).
  app.set("trust proxy", false);
  app.set("query parser", false); // Remix reads the query itself

  app.use(securityHeaders(options));
  app.use(retryAfterOnUnavailable);
  app.use(requireHost());
  // Downloads (attachments, ranged answers) go as stored: their length, validator and ranges stay the file's.
  app.use(compression({ filter: (req, res) => !res.getHeader("Content-Disposition") && !res.getHeader("Accept-Ranges") && compression.filter(req, res) }));
  // The app's scripts and styles (hashed names, kept for good) go compressed: no ranges on them (a
  // ranged answer goes as stored). In development Vite serves them, and the modules it transforms.
  if (options.dev) app.use(options.dev.middlewares);
  else
    app.use(
      `${options.build.publicPath}assets`,
      express.static(path.join(options.assetsDir, "assets"), { immutable: true, maxAge: "1y", acceptRanges: false }),
    );
  // public/'s few files are listed once, so other requests skip express.static's file-system lookup.
  const publicFiles = listPublicFiles(options.publicDir, options.assetsDir);
  const servePublic = express.static(options.publicDir, { maxAge: "1h", index: false, acceptRanges: false });
  app.use((req, res, next) => {
    if (publicFiles.has(req.path)) servePublic(req, res, next);
    else next();
  });
  app.use(serveMetrics({ token: options.metricsToken }));
  // The build this request runs on: the one given, or in development the current one (after edits).
  let build = options.build;
  const policiesOf = new WeakMap<ServerBuild, ReturnType<typeof routePolicies>>();
  if (options.dev) {
    const { loadBuild } = options.dev;
    app.use((_req, _res, next) => void loadBuild().then((current) => ((build = current), next()), next));
  }
  const routeFor = (pathname: string) => {
    if (!policiesOf.has(build)) policiesOf.set(build, routePolicies(build));
    return policiesOf.get(build)!(pathname);
  };
  // The route that will answer, for the request's id, metrics and log line, and for the checks below.
  app.use(findRoutePolicy(routeFor));
  app.use(observeRequests({ logRequests: options.log }));
  // Health checks always answer: a proxy must not take a busy server for a dead one.
  if (options.admission) app.use(admissionControl({ ...options.admission, exempt: (pathname) => pathname === "/healthz" }));
  app.use(limitBody(options));
  app.use(refuseCrossSiteRequests(options));
  app.use(pinAppOrigin(options));
  const sharedPages = () => build.entry.module as SharedPagesEntry;
  // Not in development: a page kept before an edit would be answered after it.
  if (!options.dev) app.use(reuseSharedPages(sharedPages()));
  const handleRequest = createRequestHandler({
    build: options.dev ? async () => build : options.build,
    mode: options.mode,
    // sharedPagesSince: when the request started, so a page read before a change is not kept after it.
    getLoadContext: (req) => ({ clientAddress: req.socket.remoteAddress ?? null, sharedPagesSince: sharedPages().sharedPagesSince?.() }),
  });
  // Express 4 does not await a handler: a failure goes to `next` instead of going unhandled.
  app.all("*", (req, res, next) => void handleRequest(req, res, next).catch(next));
  return app;
}

/** How long a 503 without its own `Retry-After` tells the client to wait (the database's outage hint). */
const DEFAULT_RETRY_AFTER_SECONDS = "15";

/** Every 503 says when to try again: one answered without `Retry-After` (a page while the database is down) gets the default. */
const retryAfterOnUnavailable: express.RequestHandler = (_req, res, next) => {
  // Bound to this response: the wrapper below is only ever called as its method.
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => express.Response;
  res.writeHead = function (this: express.Response, ...args: unknown[]) {
    const status = typeof args[0] === "number" ? args[0] : res.statusCode;
    if (status === 503 && !res.headersSent && !res.hasHeader("Retry-After")) res.setHeader("Retry-After", DEFAULT_RETRY_AFTER_SECONDS);
    return writeHead(...args);
  } as express.Response["writeHead"];
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
