import { startSeededApp } from "./load.ts";
import autocannon from "autocannon";
import { readFileSync, readdirSync } from "node:fs";
function cpu(pid: number): number { let t = 0; for (const task of readdirSync(`/proc/${pid}/task`)) for (const c of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean)) t += cpu(Number(c)); const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); return t + (Number(f[11]) + Number(f[12])) * 10; }
function pgCpu(): number { let t = 0; for (const d of readdirSync("/proc")) { if (!/^\d+$/.test(d)) continue; try { const st = readFileSync(`/proc/${d}/stat`, "utf8"); if (!st.includes("(postgres)")) continue; const f = st.split(") ")[1]!.split(" "); t += (Number(f[11]) + Number(f[12])) * 10; } catch {} } return t; }
const app = await startSeededApp({ workers: Number(process.env.WORKERS ?? 2) });
const headers: Record<string, string> = { cookie: app.supporterCookie };
if (process.env.AE) headers["accept-encoding"] = process.env.AE;
const path = process.env.PAGE ?? "/library";
await autocannon({ url: app.base + path, connections: 10, duration: 3, headers });
for (let run = 0; run < Number(process.env.RUNS ?? 3); run++) {
  const before = cpu(app.pid); const pgBefore = pgCpu();
  const r = await autocannon({ url: app.base + path, connections: 50, duration: Number(process.env.SECS ?? 5), headers });
  console.log(r.requests.average, r.latency.p50, r.latency.p99, ((cpu(app.pid) - before) / r.requests.total).toFixed(3), ((pgCpu() - pgBefore) / r.requests.total).toFixed(3), r.non2xx);
}
await app.stop();
