// Background jobs of this app server. Each job guards itself against running on several
// servers at once (advisory locks); this module only schedules them.
import { env } from "~/env.server";
import { runIntervalSync } from "~/models/interval-sync.server";
import { deleteExpiredSessions } from "~/models/session.server";

type Job = { name: string; everyMs: number; run: () => Promise<unknown> };

function jobs(): Job[] {
  return [
    { name: "expired-sessions", everyMs: 60 * 60 * 1000, run: () => deleteExpiredSessions() },
    // Support-platform sync; INTERVAL_MINUTES=0 turns the timer off (admins can still force it).
    { name: "interval", everyMs: env().INTERVAL_MINUTES * 60 * 1000, run: () => runIntervalSync({ trigger: "timer" }) },
  ];
}

const globalForJobs = globalThis as unknown as { __jobsStarted?: boolean };

export function startBackgroundJobs() {
  if (globalForJobs.__jobsStarted || env().NODE_ENV === "test" || process.env.DISABLE_JOBS === "1") return;
  globalForJobs.__jobsStarted = true;
  for (const job of jobs()) {
    if (job.everyMs <= 0) continue;
    const timer = setInterval(() => {
      job.run().catch((error: unknown) => console.error(`job ${job.name} failed`, error));
    }, job.everyMs);
    timer.unref();
  }
}
