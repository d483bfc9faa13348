// The production server as a cluster (server/index.ts): one worker per core by default,
// WEB_CONCURRENCY workers here. A worker that dies is replaced while the others keep answering,
// the background jobs belong to one worker only, and SIGTERM stops them all. Needs a build (npm
// test builds first; REMIX_BUILD_DIR picks another one).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appServerArgs, ensureAppBuilt, freePort } from "../scripts/app-server";
import { SCHED_IDLE, SCHED_OTHER, threadPolicies } from "./thread-policy";

const root = path.resolve(import.meta.dirname, "..");

let server: ChildProcess;
let base: string;
/** What the shared server printed. */
const printed = { output: "" };

/** The primary's worker processes. */
function workerPids(): number[] {
  return workerPidsOf(server);
}

function workerPidsOf(primary: ChildProcess): number[] {
  const found = spawnSync("pgrep", ["-P", String(primary.pid)], { encoding: "utf8" });
  return found.stdout.split("\n").filter(Boolean).map(Number).sort();
}

function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

/** A GET on a new connection (a kept-alive one may belong to a worker that was just killed). */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      })
      .on("error", reject);
  });
}

async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A production server with two workers, its output collected into `sink.output`. */
async function startCluster(sink: { output: string }): Promise<{ process: ChildProcess; base: string }> {
  const port = await freePort();
  // The production defaults for jobs and for the hashing threads' priority (idle).
  const { DISABLE_JOBS: _jobs, PASSWORD_THREAD_PRIORITY: _priority, SMTP_URL: _smtp, MAIL_TO_FILES: _mailFiles, ...inherited } = process.env;
  const started = spawn(process.execPath, appServerArgs(), {
    cwd: root,
    env: {
      ...inherited,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: `http://127.0.0.1:${port}`,
      REQUEST_LOG: "false",
      WEB_CONCURRENCY: "2",
      INTERVAL_MINUTES: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.stdout.on("data", (chunk: Buffer) => (sink.output += chunk.toString()));
  started.stderr.on("data", (chunk: Buffer) => (sink.output += chunk.toString()));
  await until("the cluster to listen", () => sink.output.includes("(2 workers)"), 60_000);
  return { process: started, base: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  ensureAppBuilt();
  ({ process: server, base } = await startCluster(printed));
});

afterAll(async () => {
  if (!server || server.exitCode !== null) return;
  server.kill("SIGKILL");
});

describe("production server cluster", () => {
  it("announces itself once and answers from WEB_CONCURRENCY workers", async () => {
    // Once for the cluster, not once per worker: where it listens, and (started without a mail
    // transport) that it cannot send mail.
    expect(printed.output.match(/\[server\] http:\/\//g)).toHaveLength(1);
    expect(printed.output.match(/No mail transport/g)).toHaveLength(1);
    expect(workerPids()).toHaveLength(2);
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${base}/healthz`).then((response) => response.status)));
    expect(answers.every((status) => status === 200)).toBe(true);
  });

  it("hashes passwords on threads that run only when a core is idle, and a sign-in is still answered", async () => {
    for (const pid of workerPids()) {
      const threads = threadPolicies(pid);
      expect(threads.find((thread) => thread.tid === pid)?.policy).toBe(SCHED_OTHER);
      // The pool's thread (one per worker on two cores): SCHED_IDLE, set through chrt.
      expect(threads.filter((thread) => thread.policy === SCHED_IDLE).length).toBeGreaterThanOrEqual(1);
    }
    const signIn = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "nobody-cluster@example.com", password: "Wrong-password-1" }),
    });
    expect(signIn.status).toBe(401);
    expect(await signIn.json()).toMatchObject({ error: "Invalid email or password." });
  });

  it("gives the background jobs to exactly one worker", () => {
    const withJobs = workerPids().filter((pid) => environOf(pid).DISABLE_JOBS !== "1");
    expect(withJobs).toHaveLength(1);
    expect(environOf(withJobs[0]!).WORKER_SLOT).toBe("0");
  });

  it("replaces a worker that dies, keeps answering meanwhile, and the replacement takes its slot's jobs", async () => {
    const before = workerPids();
    const jobsWorker = before.find((pid) => environOf(pid).DISABLE_JOBS !== "1")!;
    process.kill(jobsWorker, "SIGKILL");
    // The other worker answers while the replacement starts.
    for (let attempt = 0; attempt < 10; attempt++) expect(await freshGet(`${base}/healthz`)).toBe(200);
    const after = await until("a replacement worker", () => {
      const pids = workerPids();
      return pids.length === 2 && !pids.includes(jobsWorker) ? pids : undefined;
    });
    expect(after.filter((pid) => environOf(pid).DISABLE_JOBS !== "1")).toHaveLength(1);
    // The primary logs the death as it forks the replacement; the line may reach us a moment later.
    await expect.poll(() => printed.output, { timeout: 5_000 }).toMatch(/worker \d+ \(slot 0\) exited \(SIGKILL\); starting another/);
  });

  it("stops every worker and exits 0 on SIGTERM", async () => {
    const workers = workerPids();
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe("production server cluster on Ctrl-C", () => {
  it("does not replace a worker that a group-wide Ctrl-C reached first: it stops with the rest", async () => {
    const sink = { output: "" };
    const cluster = await startCluster(sink);
    const workers = workerPidsOf(cluster.process);
    const exited = new Promise<number | null>((resolve) => cluster.process.once("exit", (code) => resolve(code)));
    // The terminal's SIGINT reaches every process of the group in no set order: here a worker first.
    process.kill(workers[0]!, "SIGINT");
    await until("the worker to stop", () => !workerPidsOf(cluster.process).includes(workers[0]!));
    cluster.process.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(sink.output).not.toContain("starting another");
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });
});
