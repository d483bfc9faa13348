// A worker thread of the password pool (app/integrations/password-pool.server.ts): bcrypt is
// pure CPU for ~70 ms per call, so it runs here instead of on the server's event loop. Plain
// JavaScript on purpose: `npm run build` copies it next to build/index.js and build/server.js,
// where no TypeScript loader runs. One job at a time: { op, password, hash?, rounds? }.
import { getPriority, setPriority } from "node:os";
import { spawnSync } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import bcrypt from "bcryptjs";

if (!parentPort) throw new Error("password-worker.mjs runs only as a worker thread");
const port = parentPort;

// Page views go first: when the cores are busy, a sign-in waits rather than slowing every page
// (the sign-in burst target, docs/decisions/014-password-threads-yield.md). Linux keeps a nice
// value and a scheduling policy per thread, and these calls change this thread's alone; the event
// loop's thread keeps its own.
// - "low": nice 10 (relative to the process's, at most 19). The thread still gets about a tenth
//   of a busy core, and a waking event loop may wait for it to finish its time slice.
// - "idle" (the default): SCHED_IDLE on top, set with util-linux's chrt, as Node has no call for
//   it. The thread runs only when a core has nothing else to do, and any waking thread preempts
//   it at once: page views keep their latency, and on a saturated machine sign-ins wait.
// Where chrt is missing or refused, the thread stays at nice 10.
// - "normal": the pool's aged lane (password-pool.server.ts): left at the process's own
//   priority, so a sign-in that has waited past the bound runs now; the pool bounds its share.
const PASSWORD_THREAD_NICE = 10;
if (workerData?.priority !== "normal") {
  try {
    setPriority(Math.min(19, getPriority() + PASSWORD_THREAD_NICE));
  } catch {
    // A platform that refuses it keeps the default priority.
  }
}

/** This thread's id and scheduling policy, from Linux's /proc (null elsewhere). */
function threadScheduling() {
  try {
    const tid = readlinkSync("/proc/thread-self").split("/").pop();
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    // Field 41 of stat is the policy: 0 SCHED_OTHER, 5 SCHED_IDLE. Fields after the command's ")" start at 3.
    const policy = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[41 - 3]);
    return { tid, policy: policy === 5 ? "idle" : policy === 0 ? "normal" : "other" };
  } catch {
    return null;
  }
}

if (workerData?.priority === "idle") {
  const thread = threadScheduling();
  if (thread && thread.policy !== "idle") spawnSync("chrt", ["--idle", "--pid", "0", thread.tid], { stdio: "ignore", timeout: 5_000 });
}

/**
 * CPU time this thread has used, in ms (utime + stime of /proc/thread-self/stat, 10 ms ticks),
 * or null where /proc is missing. The pool bounds the aged lane's share of a core with it.
 */
function threadCpuMs() {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 (utime, stime), counting from 3 after the command's ")"; USER_HZ is 100.
    return (Number(fields[14 - 3]) + Number(fields[15 - 3])) * 10;
  } catch {
    return null;
  }
}

port.on("message", (job) => {
  const cpuBefore = threadCpuMs();
  const wallBefore = performance.now();
  // The job's CPU cost (wall time where /proc is missing: never less than the CPU it used).
  const cost = () => {
    const cpuAfter = cpuBefore === null ? null : threadCpuMs();
    return cpuAfter === null ? performance.now() - wallBefore : cpuAfter - cpuBefore;
  };
  try {
    const result = job.op === "hash" ? bcrypt.hashSync(job.password, job.rounds) : bcrypt.compareSync(job.password, job.hash);
    port.postMessage({ ok: true, result, cpuMs: cost() });
  } catch (error) {
    port.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error), cpuMs: cost() });
  }
});
// What this thread runs at (PasswordWorkerReady; tests/password-pool.test.ts checks it).
port.postMessage({ ready: true, nice: getPriority(), policy: threadScheduling()?.policy ?? "other" });
