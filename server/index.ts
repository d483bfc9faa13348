// The production server (`node build/server.js [build/server/index.js]`, bundled by `npm run build`):
// one worker per core (WEB_CONCURRENCY overrides), each a whole app server (server/worker.ts) on the
// same port. The primary supervises: it replaces dead workers, gives the background jobs to one,
// answers metrics questions, and on SIGTERM/SIGINT lets every worker drain.
import cluster, { type Worker } from "node:cluster";
import os from "node:os";
import { env, type Env } from "../app/env.server.ts";
import { missingMailTransportWarning } from "../app/integrations/mail.server.ts";
import { log } from "../app/logger.server.ts";
import { superviseMetrics } from "../app/metrics-cluster.server.ts";

process.env.NODE_ENV ??= "production"; // the workers inherit it

/** A worker that dies sooner than this after its start is restarted after a pause, not at once. */
const CRASH_LOOP_MS = 5_000;
/** How long a worker's clean exit waits for the group's signal to reach this process too. */
const GROUP_SIGNAL_GRACE_MS = 500;

// A bad configuration stops the server before any worker starts (a plain line: the log's settings are not known).
let config: Env;
try {
  config = env();
} catch (error) {
  console.error(`[server] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const workerCount = config.WEB_CONCURRENCY ?? os.availableParallelism();
const warning = cluster.isPrimary && missingMailTransportWarning();
if (warning) log().warn(warning); // no "[server]": scripts/start.ts takes such a line for the announcement
if (!cluster.isPrimary || workerCount === 1) await import("./worker.ts");
else superviseWorkers(config, workerCount);

function superviseWorkers(config: Env, count: number) {
  // The kernel hands connections to the workers: with round robin, one passed to a worker that has just died hangs.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  type Slot = { slot: number; startedAt: number; listened: boolean };
  const slots = new Map<Worker, Slot>();
  let stopping = false;
  let listening = 0;
  const metrics = superviseMetrics();
  const stop = (exitCode: number, graceMs: number) => {
    stopping = true;
    process.exitCode = exitCode;
    for (const worker of slots.keys()) worker.process.kill("SIGTERM");
    if (slots.size === 0) process.exit(exitCode);
    setTimeout(() => process.exit(exitCode), graceMs).unref();
  };
  const fork = (slot: number) => {
    // Background jobs run in slot 0 only; they also lock across app servers (app/jobs.server.ts).
    const worker = cluster.fork({ WORKER_SLOT: String(slot), ...(slot === 0 ? {} : { DISABLE_JOBS: "1" }), SERVER_QUIET: "1" });
    worker.on("message", (message: unknown) => metrics.handles(worker, message));
    const entry: Slot = { slot, startedAt: Date.now(), listened: false };
    slots.set(worker, entry);
    worker.once("listening", (address) => {
      entry.listened = true;
      // One "[server]" line for the whole group, once every worker listens (scripts/start.ts reads it).
      if (++listening === count) log().info(`[server] http://${config.HOST ?? "localhost"}:${address.port} (${count} workers)`);
    });
  };
  const afterExit = (worker: Worker, entry: Slot | undefined, code: number, signal: string) => {
    if (stopping && slots.size === 0) process.exit(process.exitCode ?? 0);
    if (stopping || !entry) return;
    const pid = worker.process.pid;
    // A worker that never listened failed at start (a bad build): another would too, so the server stops.
    const [what, next] = entry.listened ? ["exited", "starting another"] : ["failed to start", "stopping the server"];
    log().error({ worker: pid, slot: entry.slot, code, signal }, `worker ${pid} (slot ${entry.slot}) ${what} (${signal ?? `code ${code}`}); ${next}`);
    if (!entry.listened) return stop(1, 15_000);
    metrics.workerRestarted();
    setTimeout(() => stopping || fork(entry.slot), Date.now() - entry.startedAt < CRASH_LOOP_MS ? 1_000 : 0);
  };
  cluster.on("exit", (worker, code, signal) => {
    const entry = slots.get(worker);
    slots.delete(worker);
    // A worker that stopped cleanly was most likely stopped by a signal sent to the whole process
    // group (Ctrl-C), which may reach it before this process: decide once that signal had its turn.
    if (code === 0 && !stopping) setTimeout(() => afterExit(worker, entry, code, signal), GROUP_SIGNAL_GRACE_MS);
    else afterExit(worker, entry, code, signal);
  });
  // Each worker drains for at most SHUTDOWN_DRAIN_SECONDS (server/worker.ts); the primary waits a little longer.
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => stopping || stop(0, (config.SHUTDOWN_DRAIN_SECONDS + 5) * 1_000));
  for (let slot = 0; slot < count; slot++) fork(slot);
}
