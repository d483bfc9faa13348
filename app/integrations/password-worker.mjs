// A worker thread of the password pool (app/integrations/password-pool.server.ts): bcrypt is
// pure CPU for ~70 ms per call, so it runs here instead of on the server's event loop. Plain
// JavaScript on purpose: `npm run build` copies it next to build/index.js and build/server.js,
// where no TypeScript loader runs. One job at a time: { op, password, hash?, rounds? }.
import { parentPort } from "node:worker_threads";
import bcrypt from "bcryptjs";

if (!parentPort) throw new Error("password-worker.mjs runs only as a worker thread");
const port = parentPort;

port.on("message", (job) => {
  try {
    const result = job.op === "hash" ? bcrypt.hashSync(job.password, job.rounds) : bcrypt.compareSync(job.password, job.hash);
    port.postMessage({ ok: true, result });
  } catch (error) {
    port.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
port.postMessage({ ready: true });
