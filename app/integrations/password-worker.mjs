// A worker thread of the password pool (app/integrations/password-pool.server.ts): bcrypt is
// pure CPU for ~70 ms per call, so it runs here instead of on the server's event loop. Plain
// JavaScript on purpose: `npm run build` copies it next to build/index.js and build/server.js,
// where no TypeScript loader runs. One job at a time: { op, password, hash?, rounds? }.
import { getPriority, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import bcrypt from "bcryptjs";

if (!parentPort) throw new Error("password-worker.mjs runs only as a worker thread");
const port = parentPort;

// Page views go first: when the cores are busy, a sign-in waits a little rather than slowing every
// page (issue 14's burst rule). Linux keeps a nice value per thread, and this call (pid 0) sets
// this thread's alone; the event loop's thread keeps its own. Nice 10 still leaves sign-ins about
// a tenth of a busy core, so they never starve; on an idle machine it changes nothing. Relative to
// the nice value the thread started with (the process's), within the highest, 19.
const PASSWORD_THREAD_NICE = 10;
try {
  setPriority(Math.min(19, getPriority() + PASSWORD_THREAD_NICE));
} catch {
  // A platform that refuses it keeps the default priority.
}

port.on("message", (job) => {
  try {
    const result = job.op === "hash" ? bcrypt.hashSync(job.password, job.rounds) : bcrypt.compareSync(job.password, job.hash);
    port.postMessage({ ok: true, result });
  } catch (error) {
    port.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
// `nice`: what this thread runs at (tests/password-pool.test.ts checks it).
port.postMessage({ ready: true, nice: getPriority() });
