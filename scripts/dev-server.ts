// `npm run dev` (scripts/start.ts --dev starts it once the database is ready): the same HTTP
// server as production (server/app.ts: security headers, cross-site refusal, body limits) with
// Vite in middleware mode in front of Remix. Vite transforms app/ on request and pushes edits to
// the browser (hot module replacement) over this server's own port; the server build is loaded
// again through Vite for each request, so a loader or action edit needs no restart either.
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { installGlobals, type ServerBuild } from "@remix-run/node";
import { createServer as createViteServer } from "vite";
import { env } from "../app/env.server.ts";
import { createApp } from "../server/app.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const config = env();

const server = http.createServer({ headersTimeout: config.HEADERS_TIMEOUT_MS, requestTimeout: 0 });
const vite = await createViteServer({
  root,
  configFile: path.join(root, "vite.config.ts"),
  appType: "custom",
  // The HMR socket shares the page's origin, which the pages' CSP (connect-src 'self') allows.
  server: { middlewareMode: true, hmr: { server } },
});
// The browser's dependencies are pre-bundled before the first page: a page then loads them at
// once, and a Ctrl-C never stops esbuild half way through ("error while updating dependencies").
// In middleware mode Vite starts its optimizer only on the first browser request, so start it here.
const optimizer = vite.environments.client.depsOptimizer;
await optimizer?.init();
await optimizer?.scanProcessing;
await Promise.all(optimizer?.metadata.depInfoList.map((dep) => dep.processing ?? Promise.resolve()) ?? []);
installGlobals({ nativeFetch: true });
const loadBuild = () => vite.ssrLoadModule("virtual:remix/server-build") as Promise<ServerBuild>;
const build = await loadBuild();

const app = createApp(build, { middlewares: vite.middlewares as unknown as import("express").RequestHandler, loadBuild });
server.on("request", app);

const onListen = () => console.log(`[server] http://${config.HOST ?? "localhost"}:${config.PORT} (development, Vite)`);
if (config.HOST) server.listen(config.PORT, config.HOST, onListen);
else server.listen(config.PORT, onListen);

/**
 * Stops Vite once what it is still transforming (the imports of a page just served, warmed ahead)
 * is done, for at most 2 s. A transform that esbuild's stop cuts short anyway is no fault of the
 * developer's: Vite would print it as "Pre-transform error: The service was stopped".
 */
async function stopVite(): Promise<void> {
  const idle = Promise.all(Object.values(vite.environments).map((environment) => environment.waitForRequestsIdle()));
  await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  const logger = vite.config.logger;
  const logError = logger.error.bind(logger);
  logger.error = (message, options) => {
    if (!message.includes("The service was stopped")) logError(message, options);
  };
  await vite.close();
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close();
    void stopVite().finally(() => process.exit(0));
  });
}
