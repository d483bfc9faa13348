// Latency at a steady load: an even 200 requests per second (BENCH_STEADY_RATE), 150 signed-in
// `/library` and 50 `/` in every 200, each sent at its own instant 5 ms after the one before,
// whether or not earlier answers have come back (an open loop: a slow answer cannot slow the
// arrivals and so hide itself). Saturating benchmarks measure queueing; this one measures what
// a visitor waits at a load the site carries. A bare Node HTTP server answering a short body is
// driven the same way in the same run, in windows taken in turn with the app's, so the machine's
// own noise (it varies about 2x by the hour) shows beside the app's.
// Latency counts from the instant a request was due, not from when it was sent.
// Target: the app's p99 at most 30 ms.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { percentile, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";
import { freePort } from "../scripts/app-server.ts";
import { processTreeCpuMs } from "./pages.ts";

const RATE = Number(process.env.BENCH_STEADY_RATE ?? 200);
/** Seconds per window; the app and the bare server take WINDOWS windows each, in turn. */
const WINDOW_SECONDS = Number(process.env.BENCH_STEADY_WINDOW_SECONDS ?? 10);
const WINDOWS = Number(process.env.BENCH_STEADY_WINDOWS ?? 3);
const P99_TARGET_MS = 30;
const READERS = 50;

type Sample = { dueAt: number; ms: number; status: number | "error"; path: string };

/** Sends `targets[i % targets.length]` at an even `RATE` for `seconds`, open loop; resolves with every sample. */
async function driveEvenly(targets: readonly { url: string; headers: Record<string, string> }[], seconds: number): Promise<Sample[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const samples: Sample[] = [];
  const pending: Promise<void>[] = [];
  const intervalMs = 1000 / RATE;
  const total = Math.round(seconds * RATE);
  const start = performance.now() + 20;
  for (let index = 0; index < total; index++) {
    const dueAt = start + index * intervalMs;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    else if (wait > 0) await new Promise((resolve) => setImmediate(resolve));
    const target = targets[index % targets.length]!;
    // A timer may fire a little before its time: an answer counts from when it was due, or from
    // when it was sent if that was earlier (never a negative time).
    const from = Math.min(dueAt, performance.now());
    pending.push(
      new Promise<void>((resolve) => {
        const request = http.get(target.url, { agent, headers: target.headers }, (response) => {
          response.on("data", () => undefined);
          response.on("end", () => {
            samples.push({ dueAt, ms: performance.now() - from, status: response.statusCode ?? 0, path: new URL(target.url).pathname });
            resolve();
          });
        });
        request.on("error", () => {
          samples.push({ dueAt, ms: performance.now() - from, status: "error", path: new URL(target.url).pathname });
          resolve();
        });
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return samples;
}

/** A bare server in a process of its own: a short HTML answer, nothing else. */
async function startBareServer(): Promise<{ base: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const source = `require("node:http").createServer((req, res) => { res.writeHead(200, { "Content-Type": "text/html" }); res.end("<!doctype html><p>ok</p>"); }).listen(${port}, "127.0.0.1");`;
  const child: ChildProcess = spawn(process.execPath, ["-e", source], { stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 100; tries++) {
    const up = await new Promise<boolean>((resolve) =>
      http
        .get(base, (response) => {
          response.resume();
          resolve(true);
        })
        .on("error", () => resolve(false)),
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    base,
    pid: child.pid!,
    stop: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

function summary(label: string, samples: readonly Sample[]): { p50: number; p99: number; max: number; text: string } {
  const ms = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const bad = samples.filter((sample) => sample.status !== 200).length;
  const p50 = percentile(ms, 0.5);
  const p99 = percentile(ms, 0.99);
  const max = ms.at(-1) ?? Number.NaN;
  // Where the slow answers fall: spread out (each request's own cost) or bunched in a few
  // seconds (a pause of the whole process: garbage collection, a job, the machine).
  const slowSeconds = new Set(samples.filter((sample) => sample.ms > P99_TARGET_MS).map((sample) => Math.floor(sample.dueAt / 1000)));
  const slow = samples.filter((sample) => sample.ms > P99_TARGET_MS).length;
  return {
    p50,
    p99,
    max,
    text: `${label.padEnd(6)} ${samples.length} requests: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, slowest ${max.toFixed(1)} ms; non-200: ${bad}; over ${P99_TARGET_MS} ms: ${slow} in ${slowSeconds.size} distinct seconds`,
  };
}

/** BENCH_STEADY_DETAIL=1: each second's p50, p99 and slowest answer by path, for finding what makes a slow second slow. */
function bySecond(label: string, samples: readonly Sample[]) {
  const seconds = new Map<number, Sample[]>();
  for (const sample of samples) seconds.set(Math.floor(sample.dueAt / 1000), [...(seconds.get(Math.floor(sample.dueAt / 1000)) ?? []), sample]);
  const first = Math.min(...seconds.keys());
  for (const [second, inSecond] of [...seconds].sort((a, b) => a[0] - b[0])) {
    const parts = [...new Set(inSecond.map((sample) => sample.path))].map((path) => {
      const ms = inSecond
        .filter((sample) => sample.path === path)
        .map((sample) => sample.ms)
        .sort((a, b) => a - b);
      return `${path} p50 ${percentile(ms, 0.5).toFixed(1)} p99 ${percentile(ms, 0.99).toFixed(1)} max ${ms.at(-1)!.toFixed(1)}`;
    });
    console.log(`${label} +${second - first}s: ${parts.join("; ")}`);
  }
}

/**
 * BENCH_STEADY_BEFORE=<build folder>: a second app server from that build (the code before a
 * change, built already) on the same database, driven in windows of its own between the app's:
 * the before and after side by side in one run.
 */
const BEFORE_BUILD = process.env.BENCH_STEADY_BEFORE;

async function runChild() {
  const { startSeededApp } = await import("./load.ts");
  console.log(
    `\nSteady load: ${RATE} req/s evenly spaced (3 signed-in /library : 1 /), ${WINDOWS} windows of ${WINDOW_SECONDS} s for the app${BEFORE_BUILD ? `, the build in ${BEFORE_BUILD}` : ""} and a bare server, in turn`,
  );
  // One worker per core, as production runs (server/index.ts).
  const app = await startSeededApp({ readers: READERS, workers: os.availableParallelism() });
  const before = BEFORE_BUILD ? await app.startBeside(BEFORE_BUILD) : null;
  const bare = await startBareServer();
  try {
    // In each group of four: three signed-in library views, each by the next of the readers, and the home page.
    const rotated = (base: string) =>
      Array.from({ length: READERS * 4 }, (_, index): { url: string; headers: Record<string, string> } =>
        index % 4 === 3
          ? { url: `${base}/`, headers: {} }
          : { url: `${base}/library`, headers: { Cookie: app.readerCookies[(index - Math.floor(index / 4)) % READERS]! } },
      );
    const sides = [
      { label: "app", pid: app.pid, targets: rotated(app.base), samples: [] as Sample[], cpuMs: 0 },
      ...(before ? [{ label: "before", pid: before.pid, targets: rotated(before.base), samples: [] as Sample[], cpuMs: 0 }] : []),
      { label: "bare", pid: bare.pid, targets: [{ url: bare.base, headers: {} }], samples: [] as Sample[], cpuMs: 0 },
    ];
    // Warm each (first compilations, connection set-up), then measure in turn.
    for (const side of sides) await driveEvenly(side.targets, side.label === "bare" ? 1 : 2);
    for (let window = 0; window < WINDOWS; window++) {
      for (const side of sides) {
        const cpuBefore = processTreeCpuMs(side.pid) ?? Number.NaN;
        side.samples.push(...(await driveEvenly(side.targets, WINDOW_SECONDS)));
        side.cpuMs += (processTreeCpuMs(side.pid) ?? Number.NaN) - cpuBefore;
      }
    }
    const figures = sides.map((side) => ({ label: side.label, samples: side.samples, ...summary(side.label, side.samples) }));
    // CPU per request of the server's processes (all workers), the three library views and the home page together.
    for (const [index, figure] of figures.entries())
      console.log(`${figure.text}; ${(sides[index]!.cpuMs / figure.samples.length).toFixed(2)} CPU ms per request`);
    if (process.env.BENCH_STEADY_DETAIL) for (const figure of figures.slice(0, -1)) bySecond(figure.label, figure.samples);
    const appFigures = figures[0]!;
    const bareFigures = figures.at(-1)!;
    const lines: (TargetLine & { text: string })[] = [
      {
        name: "steady p99",
        ok: appFigures.p99 <= P99_TARGET_MS && appFigures.samples.every((sample) => sample.status === 200),
        text: `app p99 at ${RATE} req/s: ${appFigures.p99.toFixed(1)} ms (bare server ${bareFigures.p99.toFixed(1)} ms; target app <= ${P99_TARGET_MS} ms, every answer 200)`,
      },
    ];
    reportTargets(lines);
  } finally {
    await bare.stop();
    await app.stop();
  }
}

/** The benchmark in a child process of its own. */
export function benchSteady(): Promise<TargetLine[]> {
  return runBenchChild(fileURLToPath(import.meta.url), "steady");
}

await runAsScript(import.meta.url, runChild, benchSteady);
