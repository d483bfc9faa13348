import { startSeededApp } from "./load.ts";
import autocannon from "autocannon";
import { execSync } from "node:child_process";
const app = await startSeededApp({ workers: 2 });
const port = new URL(app.base).port;
const headers: Record<string, string> = { cookie: app.supporterCookie };
for (let run = 0; run < Number(process.env.RUNS ?? 5); run++) {
  const pending = autocannon({ url: app.base + "/library", connections: 50, duration: 5, headers });
  await new Promise((r) => setTimeout(r, 2500));
  const lines = execSync(`ss -tnpH state established '( sport = :${port} )'`).toString().trim().split("\n");
  const perPid = new Map<string, number>();
  for (const line of lines) { const pid = /pid=(\d+)/.exec(line)?.[1] ?? "?"; perPid.set(pid, (perPid.get(pid) ?? 0) + 1); }
  const r = await pending;
  console.log(JSON.stringify([...perPid.values()]), r.requests.average, r.latency.p50, r.latency.p99);
}
await app.stop();
