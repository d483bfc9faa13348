// The production HTTP server: built assets, public files and the Remix app behind one set of
// HTTP protections (server/security.ts). Replaces remix-serve, which offers no middleware.
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import morgan from "morgan";
import { limitBodySize, refuseCrossSiteRequests, securityHeaders, type SecurityOptions } from "./security.ts";

export type AppOptions = SecurityOptions & {
  build: ServerBuild;
  /** Folder of the built browser assets (build.assetsBuildDirectory resolved by the caller). */
  assetsDir: string;
  publicDir: string;
  mode: string;
  /** One line per request on stdout. */
  log: boolean;
};

export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Client addresses and protocol come from the socket, never from X-Forwarded-* headers
  // (rate limits read CLIENT_IP_HEADER themselves, only when a proxy we run sets it).
  app.set("trust proxy", false);

  app.use(securityHeaders(options));
  app.use(compression());
  app.use(options.build.publicPath, express.static(options.assetsDir, { immutable: true, maxAge: "1y" }));
  app.use(express.static(options.publicDir, { maxAge: "1h" }));
  if (options.log) app.use(morgan("tiny"));
  app.use(limitBodySize(options));
  app.use(refuseCrossSiteRequests(options));
  app.all("*", createRequestHandler({ build: options.build, mode: options.mode }));
  return app;
}
