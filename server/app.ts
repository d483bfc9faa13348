// The production HTTP server: built assets, public files and the Remix app behind one set of
// HTTP protections (server/security.ts).
import { readdirSync } from "node:fs";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { runAsViewer } from "../app/request-context.server.ts";
import { admissionControl, type AdmissionOptions } from "./admission.ts";
import { serveMetrics } from "./metrics.ts";
import { precompressedAssets } from "./precompressed.ts";
import { observeRequests } from "./observe.ts";
import { routePolicies } from "./route-policy.ts";
import { remixHandler } from "./remix-adapter.ts";
import { limitBody, refuseCrossSiteRequests, requireHost, routeAndSecurityHeaders, type SecurityOptions } from "./security.ts";

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
   * `npm run dev` (scripts/dev-server.ts): Vite's middleware serves the app's modules and assets, and the
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

  // The build this request runs on: the one given, or in development the current one (after edits).
  let build = options.build;
  const policiesOf = new WeakMap<ServerBuild, ReturnType<typeof routePolicies>>();
  const routeFor = (pathname: string) => {
    if (!policiesOf.has(build)) policiesOf.set(build, routePolicies(build));
    return policiesOf.get(build)!(pathname);
  };
  // The route that will answer (for the request's id, metrics, log line and the checks below), and the headers every response carries.
  app.use(routeAndSecurityHeaders(options, routeFor));
  app.use(requireHost());
  // Downloads (attachments, ranged answers) go as stored: their length, validator and ranges stay the file's.
  app.use(compression({ filter: (req, res) => !res.getHeader("Content-Disposition") && !res.getHeader("Accept-Ranges") && compression.filter(req, res) }));
  // The app's scripts and styles (hashed names, kept for good) go compressed: no ranges on them (a
  // ranged answer goes as stored). In development Vite serves them, and the modules it transforms.
  if (options.dev) app.use(options.dev.middlewares);
  else
    app.use(
      `${options.build.publicPath}assets`,
      // Compressed when built, for browsers that accept Brotli (server/precompressed.ts).
      precompressedAssets(path.join(options.assetsDir, "assets")),
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
  if (options.dev) {
    const { loadBuild } = options.dev;
    app.use((_req, _res, next) => void loadBuild().then((current) => ((build = current), next()), next));
  }
  app.use(observeRequests({ logRequests: options.log }));
  // Health checks always answer: a proxy must not take a busy server for a dead one.
  if (options.admission) app.use(admissionControl({ ...options.admission, exempt: (pathname) => pathname === "/healthz" }));
  app.use(limitBody(options));
  app.use(refuseCrossSiteRequests(options));
  const sharedPages = () => build.entry.module as SharedPagesEntry;
  // Not in development: a page kept before an edit would be answered after it.
  if (!options.dev) app.use(reuseSharedPages(sharedPages()));
  const remix = remixHandler({
    build: options.dev ? async () => build : options.build,
    mode: options.mode,
    appUrl: options.appUrl,
    // sharedPagesSince: when the request started, so a page read before a change is not kept after it.
    getLoadContext: (req) => ({ clientAddress: req.socket.remoteAddress ?? null, sharedPagesSince: sharedPages().sharedPagesSince?.() }),
  });
  // The viewer's headers stay at hand for the whole answer: dates are written in their locale and time zone.
  app.all("*", (req, res, next) => runAsViewer({ get: (name) => req.get(name) ?? null }, () => remix(req, res, next)));
  return app;
}

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
