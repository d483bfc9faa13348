// How every launcher (npm start, the e2e server, server tests, benchmarks) starts the production
// server: the bundled `<build>/server.js` (scripts/build-server.mjs) serving `<build>/server/index.js`.
import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtFingerprint, sourceFingerprint } from "./build-fingerprint.mjs";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * V8 flags of the app server (the Dockerfile's CMD passes the same).
 * - A 4 MB young generation (V8's default grows to 16 MB per semi-space) collects request
 *   garbage sooner: under the listing benchmark the peak RSS drops by about 25 MB for a
 *   throughput cost within the noise.
 * - The old generation may grow to 2.5 times its live size before a full collection (V8 chose
 *   about four times here), which keeps the listing benchmark's peak RSS near 230 MB instead of
 *   about 260 MB. Twice the live size saved 30 MB more, but then a download's stream of 512 KiB
 *   buffers set off full collections often enough to cost a third of its speed in the
 *   release-day benchmark (docs/benchmarks.md).
 */
export const APP_SERVER_NODE_FLAGS = ["--max-semi-space-size=4", "--heap-growing-percent=150"];

/**
 * The app server's environment defaults (the Dockerfile sets the same; a value already set wins).
 * Two glibc malloc arenas instead of up to eight per core: a worker's threads (libuv's pool, the
 * password threads, V8's) no longer each keep a heap of their own. Measured alternating, two runs
 * each: peak RSS 228-232 MB against 244-246 MB in the library benchmark, 254-262 MB against
 * 272-291 MB per worker on the release day, throughput within the noise.
 */
export function appServerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { MALLOC_ARENA_MAX: "2", ...env };
}

/** Node arguments that start the app server on the given build folder (default REMIX_BUILD_DIR or build). */
export function appServerArgs(buildDir = process.env.REMIX_BUILD_DIR ?? "build"): string[] {
  const dir = path.resolve(projectRoot, buildDir);
  return [...APP_SERVER_NODE_FLAGS, path.join(dir, "server.js"), path.join(dir, "server", "index.js")];
}

/**
 * Builds the app and its server into the build folder unless it holds a build of the current
 * sources (scripts/build-fingerprint.mjs): `npm start`, benchmarks and server tests never run a
 * stale build, and a restart with unchanged sources starts at once. Answers whether it built.
 */
export function ensureAppBuilt(buildDir = process.env.REMIX_BUILD_DIR ?? "build", log: (line: string) => void = console.log): boolean {
  const dir = path.resolve(projectRoot, buildDir);
  const complete = appServerArgs(buildDir).every((arg) => arg.startsWith("--") || existsSync(arg));
  if (complete && builtFingerprint(dir) === sourceFingerprint(projectRoot)) return false;
  log(`Building the app into ${buildDir}/ (the first start, or the sources changed) ...`);
  // A production build whatever the caller runs as (tests run with NODE_ENV=test, whose React
  // build the production server cannot render with).
  const env: NodeJS.ProcessEnv = { ...process.env, REMIX_BUILD_DIR: buildDir, NODE_ENV: "production" };
  for (const step of [
    [path.join(projectRoot, "node_modules/@remix-run/dev/dist/cli.js"), "vite:build"],
    [path.join(projectRoot, "scripts/build-server.mjs")],
  ]) {
    // The builders' output is shown only when they fail.
    const result = spawnSync(process.execPath, step, { cwd: projectRoot, env, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
    if (result.status !== 0) throw new Error(`building the app failed (${path.basename(step[0]!)}):\n${result.stdout}${result.stderr}`);
  }
  return true;
}

/** Ports below this are left to services a machine may run (databases, dev servers). */
const LOWEST_CHOSEN_PORT = 10_000;

/** Where the kernel's range for the local ports of outgoing connections starts (Linux; else a common default). */
function ephemeralPortsStart(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // Not Linux.
  }
  return 32_768;
}

/** Listens on `port` of `host` (0: any port) and closes again: the port it got, or null when taken. */
async function probePort(port: number, host = "127.0.0.1"): Promise<number | null> {
  const probe = createServer();
  probe.listen(port, host);
  // Not events.once(probe, "listening"): it rejects on the "error" a taken port emits.
  const listened = await new Promise<boolean>((resolve) => probe.once("listening", () => resolve(true)).once("error", () => resolve(false)));
  if (!listened) return null;
  const { port: got } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return got;
}

/** Is something already listening on `port` (of `host`, else of 127.0.0.1)? */
export async function portTaken(port: number, host?: string): Promise<boolean> {
  return (await probePort(port, host)) === null;
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (for servers started by tests and tools).
 * It is chosen below the ephemeral range on purpose: a port from listen(0) lies inside it, where
 * any outgoing connection of a parallel test may take it as its local port before the server
 * binds it (a CI run lost a first start to EADDRINUSE that way).
 */
export async function freePort(): Promise<number> {
  const choices = ephemeralPortsStart() - LOWEST_CHOSEN_PORT;
  for (let attempt = 0; choices >= 1_000 && attempt < 100; attempt++) {
    const port = LOWEST_CHOSEN_PORT + Math.floor(Math.random() * choices);
    // 10080 is on Chromium's list of unsafe ports (ERR_UNSAFE_PORT), the only one in this range.
    if (port !== 10_080 && (await probePort(port)) !== null) return port;
  }
  // A machine whose ephemeral range starts low: take whatever the kernel hands out.
  const port = await probePort(0);
  if (port === null) throw new Error("no free TCP port on 127.0.0.1");
  return port;
}

/** Waits until the app server started as `child` answers `url` with a 2xx; fails when it exits first or after `timeoutMs`. */
export async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error("The app server exited during start-up");
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The app server did not answer ${url} in time`);
}
