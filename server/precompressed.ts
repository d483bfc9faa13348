// The app's built scripts and styles, compressed once when they are built (scripts/precompress.mjs:
// Brotli at its best quality, 11) instead of at each request by the compression middleware (quality
// 4, as fast as a per-request compressor must be): the same file in about 14% fewer bytes, for no
// CPU per request. A browser that accepts Brotli gets `<file>.br` with `Content-Encoding: br`;
// any other request falls through to express.static and the middleware, as before.
import { readdirSync } from "node:fs";
import path from "node:path";
import type { RequestHandler } from "express";

const EXTENSIONS = new Set([".js", ".css"]);

/** Serves `dir/<name>.br` for `GET <name>` (relative to where it is mounted) when the browser accepts Brotli. */
export function precompressedAssets(dir: string): RequestHandler {
  let names: Set<string>;
  try {
    names = new Set(
      readdirSync(dir)
        .filter((file) => file.endsWith(".br") && EXTENSIONS.has(path.extname(file.slice(0, -".br".length))))
        .map((file) => `/${file.slice(0, -".br".length)}`),
    );
  } catch {
    names = new Set();
  }
  return (req, res, next) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || !names.has(req.path)) return next();
    res.vary("Accept-Encoding");
    if (req.acceptsEncodings("br", "identity") !== "br") return next();
    // The file's own type, as express.static gives it (send does not replace a type already set).
    res.type(path.extname(req.path));
    res.setHeader("Content-Encoding", "br");
    res.sendFile(path.join(dir, `${req.path.slice(1)}.br`), { immutable: true, maxAge: "1y", acceptRanges: false }, (error) => {
      if (error) next(error);
    });
  };
}
