// The production HTTP server: built assets, public files and the Remix app behind one set of
// HTTP protections (server/security.ts).
import { readdirSync } from "node:fs";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { fileURLToPath } from "node:url";
import type { CacheableHandle } from "../app/document-cache.server.ts";
import { env } from "../app/env.server.ts";
import { noteAccountOf, runAsViewer } from "../app/request-context.server.ts";
import { admissionControl } from "./admission.ts";
import { serveMetrics } from "./metrics.ts";
import { precompressedAssets } from "./precompressed.ts";
import { observeRequests } from "./observe.ts";
import { routePolicies } from "./route-policy.ts";
import { remixHandler } from "./remix-adapter.ts";
import { limitBody, refuseCrossSiteRequests, requireHost, routeAndSecurityHeaders, routeIdOf } from "./security.ts";

/** The project: server/ in development, the build's folder once bundled (build/server.js). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * `npm run dev` (scripts/dev-server.ts): Vite's middleware serves the app's modules and assets, and the
 * build is loaded again for every request, so an edit shows without a restart.
 */
type DevServer = { middlewares: express.RequestHandler; loadBuild: () => Promise<ServerBuild> };

/**
 * A GET of a page that opts in (its route's handle) by a guest or a signed-in reader is answered
 * from the page kept for them when the app finds it fresh, without running Remix; otherwise Remix
 * answers, and its page is kept at the stamp read here (`res.locals.keptLookup`).
 */
export function keptPages(
  keptPage: typeof import("../app/entry.server.tsx").keptPage,
  handleOf: (routeId: string | null) => CacheableHandle | undefined,
): express.RequestHandler {
  return (req, res, next) => {
    const page = handleOf(routeIdOf(res));
    if (!page?.guestCacheable && !page?.keptForReaders) return next();
    const { cookie, authorization, "if-none-match": ifNoneMatch, "accept-encoding": acceptEncoding, "accept-language": acceptLanguage } = req.headers;
    const request = { method: req.method, url: req.originalUrl, cookie, authorization, acceptLanguage, ifNoneMatch, acceptEncoding };
    keptPage(request, page).then(
      (found) => {
        if (!("answer" in found)) return void ((res.locals.keptLookup = found.lookup), next());
        if (found.accountId) noteAccountOf(String(req.headers["x-request-id"]), found.accountId);
        const { status, headers, body } = found.answer;
        res.status(status);
        for (const [name, value] of headers) res.setHeader(name, value);
        const sent = req.method === "HEAD" ? null : body;
        if (sent) res.setHeader("Content-Length", sent.length);
        else res.removeHeader("Content-Length");
        res.end(sent ?? undefined);
      },
      () => next(), // Remix answers (and says what is wrong)
    );
  };
}

/** The app on `build`, configured by the environment (app/env.server.ts, checked by server/index.ts). */
export function createApp(initialBuild: ServerBuild, dev?: DevServer): express.Express {
  const config = env();
  const publicDir = path.join(root, "public");
  // The browser assets: <build>/client beside the server build's folder (vite.config.ts).
  const assetsDir = dev ? publicDir : path.resolve(root, initialBuild.assetsBuildDirectory);
  const app = express();
  app.disable("x-powered-by");
  // Addresses come from the socket, never X-Forwarded-* (rate limits read CLIENT_IP_HEADER when configured).
  app.set("trust proxy", false);
  app.set("query parser", false); // Remix reads the query itself

  // The build this request runs on: the one given, or in development the current one (after edits).
  let build = initialBuild;
  const policiesOf = new WeakMap<ServerBuild, ReturnType<typeof routePolicies>>();
  const routeFor = (pathname: string) => {
    if (!policiesOf.has(build)) policiesOf.set(build, routePolicies(build));
    return policiesOf.get(build)!(pathname);
  };
  // The route that will answer (for the request's id, metrics, log line and the checks below), and the headers every response carries.
  app.use(routeAndSecurityHeaders(config, routeFor));
  app.use(requireHost());
  // Downloads (attachments, ranged answers) go as stored: their length, validator and ranges stay the file's.
  app.use(compression({ filter: (req, res) => !res.getHeader("Content-Disposition") && !res.getHeader("Accept-Ranges") && compression.filter(req, res) }));
  // The app's scripts and styles (hashed names, kept for good) go compressed: no ranges on them (a
  // ranged answer goes as stored). In development Vite serves them, and the modules it transforms.
  if (dev) app.use(dev.middlewares);
  else {
    const assets = path.join(assetsDir, "assets");
    // Compressed when built, for browsers that accept Brotli (server/precompressed.ts).
    app.use(`${build.publicPath}assets`, precompressedAssets(assets), express.static(assets, { immutable: true, maxAge: "1y", acceptRanges: false }));
  }
  // public/'s few files are listed once, so other requests skip express.static's file-system lookup.
  const publicFiles = listPublicFiles(publicDir, assetsDir);
  const servePublic = express.static(publicDir, { maxAge: "1h", index: false, acceptRanges: false });
  app.use((req, res, next) => {
    if (publicFiles.has(req.path)) servePublic(req, res, next);
    else next();
  });
  app.use(serveMetrics({ token: config.METRICS_TOKEN }));
  if (dev) app.use((_req, _res, next) => void dev.loadBuild().then((current) => ((build = current), next()), next));
  app.use(observeRequests({ logRequests: config.REQUEST_LOG }));
  // Health checks always answer: a proxy must not take a busy server for a dead one.
  if (!dev) app.use(admissionControl(config, (pathname) => pathname === "/healthz"));
  app.use(limitBody(config));
  app.use(refuseCrossSiteRequests(config));
  // Not in development: a page kept before an edit would be answered after it.
  const { keptPage } = build.entry.module as { keptPage?: typeof import("../app/entry.server.tsx").keptPage };
  if (!dev && keptPage) app.use(keptPages(keptPage, (routeId) => build.routes[routeId ?? ""]?.module.handle as CacheableHandle | undefined));
  const remix = remixHandler({
    build: dev ? async () => build : build,
    mode: config.NODE_ENV,
    appUrl: config.APP_URL,
    getLoadContext: (req) => ({ clientAddress: req.socket.remoteAddress ?? null, readerLookup: req.res?.locals.keptLookup ?? null }),
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
