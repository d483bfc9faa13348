// A deploy must not cut a download: on SIGTERM the production server (a cluster of two workers
// here) stops taking connections and lets a transfer in flight finish within
// SHUTDOWN_DRAIN_SECONDS (its default here), then exits. Needs a build (ensureAppBuilt).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { signedDownloadUrl } from "~/models/download.server";
import { appServerArgs, ensureAppBuilt, freePort, waitForHealth } from "../scripts/app-server";
import { setEnv } from "./env";
import { createPost } from "./library-fixtures";

const root = path.resolve(import.meta.dirname, "..");
/** The stop's old fixed wait: the transfer below stays in flight longer than this after SIGTERM. */
const OLD_STOP_WAIT_MS = 10_000;
const FILE_BYTES = 24 * 1024 * 1024;

let server: ChildProcess;
let base = "";
let output = "";

beforeAll(async () => {
  ensureAppBuilt();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const { SHUTDOWN_DRAIN_SECONDS: _drain, ...inherited } = process.env;
  server = spawn(process.execPath, appServerArgs(), {
    cwd: root,
    env: {
      ...inherited,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      REQUEST_LOG: "false",
      WEB_CONCURRENCY: "2",
      DISABLE_JOBS: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitForHealth(`${base}/healthz`, server);
  // The signed address is built as the server builds it: same secret, this server's origin.
  setEnv("APP_URL", base);
}, 240_000);

afterAll(() => {
  setEnv("APP_URL", undefined);
  if (server && server.exitCode === null) server.kill("SIGKILL");
});

/** Whether a new connection to the server is refused (it stopped listening). */
function refusesConnections(): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(`${base}/healthz`, { agent: false }, (response) => {
        response.resume();
        resolve(false);
      })
      .on("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

it("a download in flight at SIGTERM arrives whole, new connections are refused, and the server then exits", async () => {
  const post = await createPost({ paid: false, fileSize: FILE_BYTES });
  const url = new URL(signedDownloadUrl(post.id, null));

  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(`${base}${url.pathname}${url.search}`, { agent: false }, resolve).on("error", reject);
  });
  expect(response.statusCode).toBe(200);
  expect(Number(response.headers["content-length"])).toBe(FILE_BYTES);
  let received = 0;
  response.on("data", (chunk: Buffer) => (received += chunk.length));
  const ended = once(response, "end");
  // The downloader reads its first bytes, then stalls (a slow line) while the deploy begins.
  await new Promise((resolve) => response.once("data", resolve));
  response.pause();
  const exited = once(server, "exit");
  server.kill("SIGTERM");

  // The listener closes at once: a proxy sends new requests to the other server.
  for (let tries = 0; !(await refusesConnections()); tries++) {
    expect(tries, output).toBeLessThan(100);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Longer than the old fixed wait, well within the drain time: the transfer must survive it.
  await new Promise((resolve) => setTimeout(resolve, OLD_STOP_WAIT_MS + 2_000));
  expect(server.exitCode).toBeNull();
  response.resume();
  await ended;
  expect(received).toBe(FILE_BYTES);
  expect(response.complete).toBe(true);

  // Nothing left in flight: the server exits on its own, cleanly.
  const [code] = (await exited) as [number | null];
  expect(code).toBe(0);
}, 120_000);
