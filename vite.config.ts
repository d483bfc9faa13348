// The app's build and dev server: Remix's Vite plugin (client and server builds), with every v3
// future flag on (docs/decisions/020-vite-and-single-fetch.md).
import path from "node:path";
import { vitePlugin as remix } from "@remix-run/dev";
import { createLogger, defineConfig, type Plugin, type Rollup } from "vite";
// Remix's own export remover (with dead-code elimination), as its plugin uses it for loaders.
import { removeExports } from "@remix-run/dev/dist/vite/remove-exports.js";

// REMIX_BUILD_DIR lets several builds live side by side (parallel test runs on one machine):
// <dir>/client holds the browser assets, <dir>/server/index.js the server build.
const buildDirectory = process.env.REMIX_BUILD_DIR ?? "build";

declare module "@remix-run/node" {
  // Single fetch's types for loaders and actions (useLoaderData, useActionData, useFetcher).
  interface Future {
    v3_singleFetch: true;
  }
}

/** removeExports' result (its declared type is @babel/generator's, whose types are not installed). */
type RemovedExports = { code: string; map: Rollup.SourceMapInput };

/** Route exports only the server reads (server/route-policy.ts), besides Remix's loader, action and headers. */
const SERVER_ONLY_EXPORTS = ["requestPolicy"];

/**
 * Drops `requestPolicy` (and the server modules only it uses) from the browser's route modules:
 * Remix's plugin strips only loader, action and headers, and refuses a `.server` import that
 * another export still names.
 */
function serverOnlyRouteExports(): Plugin {
  const appDir = path.resolve(import.meta.dirname, "app/routes") + path.sep;
  return {
    name: "creator-library-server-only-route-exports",
    transform(code, id, options) {
      if (options?.ssr || !id.startsWith(appDir) || !code.includes("requestPolicy")) return;
      const [filename] = id.split("?");
      return removeExports(code, SERVER_ONLY_EXPORTS, { sourceMaps: true, filename: id, sourceFileName: filename }) as RemovedExports;
    },
  };
}

/**
 * Vite's logger, less one warning nobody here can act on: a dependency whose published source map
 * names sources it does not ship (remix-auth-oauth2 does), which `npm run dev` printed at every start.
 */
function quietAboutDependencySourceMaps() {
  const logger = createLogger();
  const warnOnce = logger.warnOnce.bind(logger);
  logger.warnOnce = (message, options) => {
    if (/^Sourcemap for ".*\/node_modules\/.*" points to missing source files$/.test(message)) return;
    warnOnce(message, options);
  };
  return logger;
}

export default defineConfig(({ isSsrBuild }) => ({
  customLogger: quietAboutDependencySourceMaps(),
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  // public/ is served from the project by the HTTP server (server/app.ts), not copied into the build.
  // The server build is one file (no chunks beside it), as a deploy or a test copies it alone.
  build: { copyPublicDir: false, ...(isSsrBuild ? { rollupOptions: { output: { inlineDynamicImports: true } } } : {}) },
  // Server-only dependencies stay external (node_modules at run time), except these, which ship
  // untranspiled ESM that Node cannot import on its own; the generated Prisma client is app/ source.
  ssr: { noExternal: [/^remix-auth/, /^remix-toast/] },
  server: { hmr: { overlay: true } },
  // `npm run dev` pre-bundles every dependency its scan of the routes finds before serving
  // (scripts/dev-server.ts); remix-toast reaches this one only at request time.
  optimizeDeps: { include: ["@remix-run/server-runtime"] },
  plugins: [
    serverOnlyRouteExports(),
    remix({
      buildDirectory,
      ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
      serverModuleFormat: "esm",
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_lazyRouteDiscovery: true,
        v3_singleFetch: true,
        // Scan the entry and every route for dependencies at dev start, not on the first page.
        unstable_optimizeDeps: true,
      },
    }),
  ],
}));
