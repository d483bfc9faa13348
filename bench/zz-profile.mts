import { startSeededApp } from "./load.ts";
import autocannon from "autocannon";
const path = process.env.PROF_PATH ?? "/library";
const app = await startSeededApp({ workers: 1 });
const headers: Record<string, string> = { cookie: app.supporterCookie };
if (process.env.PROF_AE) headers["accept-encoding"] = process.env.PROF_AE;
// warm
await autocannon({ url: app.base + path, connections: 10, duration: 3, headers });
const r = await autocannon({ url: app.base + path, connections: 50, duration: Number(process.env.PROF_SECONDS ?? 10), headers });
console.log(r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
await app.stop();
