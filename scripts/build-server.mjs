#!/usr/bin/env node
// Bundles the production server (server/index.ts and what it imports from app/) into plain
// JavaScript next to the Remix build (<build>/server/index.js and <build>/client, made by
// `remix vite:build`), so production runs `node <build>/server.js` without a TypeScript loader in
// memory. Packages stay external (node_modules at run time).
import { copyFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { FINGERPRINT_FILE, sourceFingerprint } from "./build-fingerprint.mjs";
import { precompressAssets } from "./precompress.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Relative to the project, or absolute (REMIX_BUILD_DIR=/tmp/build-x).
const buildDir = path.resolve(root, process.env.REMIX_BUILD_DIR ?? "build");
// Taken before bundling: a source edited while the build runs makes the next start build again.
const fingerprint = sourceFingerprint(root);

await build({
  entryPoints: [path.join(root, "server/index.ts")],
  outfile: path.join(buildDir, "server.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  // The app's own `~/` imports (tsconfig paths) are bundled, not taken for a package.
  alias: { "~": path.join(root, "app") },
  logLevel: "warning",
});

// The password pool's worker thread runs as its own file, beside build/server/index.js and
// build/server.js (both resolve it as `./password-worker.mjs` from their own address).
for (const folder of [buildDir, path.join(buildDir, "server")]) {
  copyFileSync(path.join(root, "app/integrations/password-worker.mjs"), path.join(folder, "password-worker.mjs"));
}

// The browser's scripts and styles, compressed once at Brotli's best quality (express-static-gzip in server/app.ts).
await precompressAssets(path.join(buildDir, "client", "assets"));

// The last step of `npm run build` (after `remix vite:build`): the build is complete and current.
writeFileSync(path.join(buildDir, FINGERPRINT_FILE), `${fingerprint}\n`);
