// One app server process (server/index.ts starts one per worker): the Remix build in argv[2], else
// $REMIX_BUILD_DIR/server/index.js, behind server/app.ts on PORT (and HOST).
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { installGlobals, type ServerBuild } from "@remix-run/node";
import { env } from "../app/env.server.ts";
import { PASSWORD_WORKER_URL, passwordPool } from "../app/integrations/password-pool.server.ts";
import { errorFields, log } from "../app/logger.server.ts";
import { startWorkerMetrics } from "../app/metrics-cluster.server.ts";
import { withoutSlowQueryNotes } from "../app/slow-query-notes.server.ts";
import { createApp } from "./app.ts";

// Checked by server/index.ts before this worker started (it also set NODE_ENV's default).
const config = env();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildPath = path.resolve(root, process.argv[2] ?? path.join(config.REMIX_BUILD_DIR, "server", "index.js"));
if (!existsSync(buildPath)) {
  log().error(`No server build at ${buildPath}. Run \`npm run build\` first.`);
  process.exit(1);
}
const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;

installGlobals({ nativeFetch: build.future.v3_singleFetch });
startWorkerMetrics();

// Slow clients must not hold connections: the head within HEADERS_TIMEOUT_MS, the body within limitBody's deadline.
const serverOptions: http.ServerOptions = { headersTimeout: config.HEADERS_TIMEOUT_MS, requestTimeout: 0, connectionsCheckingInterval: 1_000 };
const app = createApp(build);
// Sign-ins hash passwords in worker threads; without them the server must not take traffic.
const passwordThreads = passwordPool().catch((error: unknown) => {
  const advice = "it is copied next to the server by `npm run build`; rebuild, or check that bcryptjs is installed";
  log().error(errorFields(error), `The password worker pool could not start (${fileURLToPath(PASSWORD_WORKER_URL)}): ${advice}.`);
  process.exit(1);
});
// While they start, this worker serves a guest's library and home page to itself through a private loopback listener (`exclusive`: the
// primary never hears of it): the first visitors then do not pay for a fresh process's first render (about 0.4 s). Given up after 5 s.
async function warmUp(): Promise<void> {
  const warming = http.createServer(serverOptions, app);
  try {
    await new Promise<void>((resolve, reject) => warming.once("error", reject).listen({ host: "127.0.0.1", port: 0, exclusive: true }, resolve));
    const base = `http://127.0.0.1:${(warming.address() as AddressInfo).port}`;
    const init = { headers: { "User-Agent": "creator-library-warm-up", "Accept-Encoding": "br, gzip" }, signal: AbortSignal.timeout(5_000) };
    for (const page of ["/library", "/"]) await (await fetch(base + page, init)).arrayBuffer();
  } catch {
    // Not warm: the first visitors pay for it.
  } finally {
    warming.closeAllConnections();
    warming.close();
  }
}
await Promise.all([passwordThreads, withoutSlowQueryNotes(warmUp)]);
const server = http.createServer(serverOptions, app);
server.listen(config.PORT, config.HOST, () => {
  if (!config.SERVER_QUIET) log().info(`[server] http://${config.HOST ?? "localhost"}:${config.PORT}`); // else the primary announces the group
});

// Graceful stop: no new connections, idle ones closed, and SHUTDOWN_DRAIN_SECONDS for the responses in
// flight. Ctrl-C under `npm start` arrives twice (terminal and scripts/start.ts): the second is ignored.
let inFlight = 0;
let stopping = false;
server.on("request", (_req, res: http.ServerResponse) => {
  inFlight += 1;
  if (stopping) res.shouldKeepAlive = false; // its one response, then the connection closes
  res.once("close", () => {
    if (--inFlight === 0 && stopping) process.exit(0);
  });
});
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeIdleConnections();
    if (inFlight === 0) process.exit(0);
    log().info({ signal, inFlight }, `${signal}: draining ${inFlight} response(s) in flight, at most ${config.SHUTDOWN_DRAIN_SECONDS} s`);
    setInterval(() => server.closeIdleConnections(), 1_000).unref();
    setTimeout(() => {
      log().warn({ inFlight }, `drain time over: ${inFlight} response(s) cut`);
      process.exit(0);
    }, config.SHUTDOWN_DRAIN_SECONDS * 1_000).unref();
  });
}
