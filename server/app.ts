// The production HTTP server: built assets, public files and the Remix app behind one set of
// HTTP protections (server/security.ts).
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import expressStaticGzip from "express-static-gzip";
import type { CacheableHandle } from "../app/document-cache.server.ts";
import { env } from "../app/env.server.ts";
import { noteRequestAccount, runAsViewer } from "../app/request-context.server.ts";
import { admissionControl } from "./admission.ts";
import { observeRequests, serveMetrics } from "./observe.ts";
import { routePolicies } from "./route-policy.ts";
import { remixHandler } from "./remix-adapter.ts";
import { limitBody, refuseCrossSiteRequests, requireHost, routeAndSecurityHeaders, routeIdOf } from "./security.ts";

/** The project: server/'s parent in development, the build's folder once bundled (build/server.js). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `npm run dev` (scripts/dev-server.ts): Vite serves the app's modules and assets, and each request loads the current build. */
type DevServer = { middlewares: express.RequestHandler; loadBuild: () => Promise<ServerBuild> };

type KeptPage = typeof import("../app/entry.server.tsx").keptPage;

/**
 * A GET of a page that opts in (its route's handle), by a guest or a signed-in reader, is answered
 * from the page kept for them if the app finds it fresh, without running Remix; otherwise Remix
 * answers and its page is kept at the stamp read here (`res.locals.keptLookup`).
 */
export function keptPages(keptPage: KeptPage, handleOf: (routeId: string | null) => CacheableHandle | undefined): express.RequestHandler {
  return (req, res, next) => {
    const page = handleOf(routeIdOf(res));
    if (!page?.guestCacheable && !page?.keptForReaders) return next();
    const { cookie, authorization, "if-none-match": ifNoneMatch, "accept-encoding": acceptEncoding, "accept-language": acceptLanguage } = req.headers;
    const request = { method: req.method, url: req.originalUrl, cookie, authorization, acceptLanguage, ifNoneMatch, acceptEncoding };
    keptPage(request, page).then(
      (found) => {
        // A client that left during the lookup: nothing to answer or make, and its "close" has gone by.
        if (res.closed) return "answer" in found ? undefined : found.made();
        if (!("answer" in found)) return void ((res.locals.keptLookup = found.lookup), res.once("close", found.made), next());
        if (found.accountId) noteRequestAccount(found.accountId);
        const body = req.method === "HEAD" ? null : found.answer.body;
        res.status(found.answer.status).setHeaders(new Map(found.answer.headers));
        if (body) res.setHeader("Content-Length", body.length);
        else res.removeHeader("Content-Length");
        res.end(body ?? undefined);
      },
      () => next(), // Remix answers (and says what is wrong)
    );
  };
}

/** The app on `build`, configured by the environment (app/env.server.ts, checked by server/index.ts). */
export function createApp(initialBuild: ServerBuild, dev?: DevServer): express.Express {
  const config = env();
  const publicDir = path.join(root, "public");
  const assetsDir = dev ? publicDir : path.resolve(root, initialBuild.assetsBuildDirectory); // <build>/client
  const app = express();
  app.disable("x-powered-by");
  // Addresses come from the socket, never X-Forwarded-* (rate limits read CLIENT_IP_HEADER when configured).
  app.set("trust proxy", false);
  app.set("query parser", false); // Remix reads the query itself

  let build = initialBuild; // in development, the current one (after edits)
  const policiesOf = new WeakMap<ServerBuild, ReturnType<typeof routePolicies>>();
  const routeFor = (pathname: string) => (policiesOf.get(build) ?? policiesOf.set(build, routePolicies(build)).get(build)!)(pathname);
  app.use(routeAndSecurityHeaders(config, routeFor));
  // Downloads (attachments, ranged answers) go as stored: their length, validator and ranges stay the file's.
  app.use(compression({ filter: (req, res) => !res.getHeader("Content-Disposition") && !res.getHeader("Accept-Ranges") && compression.filter(req, res) }));
  // The app's scripts and styles (hashed names, kept for good; no ranges): their Brotli copies made at
  // build time (scripts/precompress.mjs, quality 11) for browsers that take Brotli, else the middleware's gzip.
  const serveStatic = { immutable: true, maxAge: "1y", acceptRanges: false };
  if (dev) app.use(dev.middlewares);
  else app.use(`${build.publicPath}assets`, expressStaticGzip(path.join(assetsDir, "assets"), { enableBrotli: true, orderPreference: ["br"], serveStatic }));
  // public/'s few files are listed once, so other requests skip express.static's file-system lookup.
  const publicFiles = new Set<string>();
  for (const entry of readdirSync(publicDir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const url = `/${path.relative(publicDir, file).split(path.sep).map(encodeURIComponent).join("/")}`;
    if (entry.isFile() && !file.startsWith(assetsDir + path.sep)) publicFiles.add(url);
  }
  const servePublic = express.static(publicDir, { maxAge: "1h", index: false, acceptRanges: false });
  app.use((req, res, next) => void (publicFiles.has(req.path) ? servePublic(req, res, next) : next()));
  // From here on every answer has its request id and log line, a refused Host and /metrics too (not the files above, whose Host nothing reads).
  app.use(observeRequests({ logRequests: config.REQUEST_LOG }));
  app.use(requireHost());
  app.use(serveMetrics({ token: config.METRICS_TOKEN }));
  if (dev) app.use((_req, _res, next) => void dev.loadBuild().then((current) => ((build = current), next()), next));
  // Health checks always answer: a proxy must not take a busy server for a dead one.
  if (!dev) app.use(admissionControl(config, (pathname) => pathname === "/healthz"));
  app.use(limitBody(config));
  app.use(refuseCrossSiteRequests(config));
  // Not in development: a page kept before an edit would be answered after it.
  const { keptPage } = build.entry.module as { keptPage?: KeptPage };
  if (!dev && keptPage) app.use(keptPages(keptPage, (routeId) => build.routes[routeId ?? ""]?.module.handle as CacheableHandle | undefined));
  const remix = remixHandler(dev ? async () => build : build, config.NODE_ENV, new URL(config.APP_URL));
  // The viewer's headers stay at hand for the whole answer: dates are written in their locale and time zone.
  app.all("*", (req, res, next) => runAsViewer({ get: (name) => req.get(name) ?? null }, () => remix(req, res, next)));
  return app;
}
