// A background job's run (app/jobs.server.ts): counted by outcome for /metrics, and a failure
// logged with its job and run id. Under NODE_ENV=test the logger writes errors only, through
// console.error; the start and end lines of a run show in production (tests/observability.test.ts
// reads the server's JSON lines).
import { register } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { runJob } from "~/jobs.server";
import { watchMailOutbox } from "~/metrics.server";

async function runs(job: string, outcome: string): Promise<number> {
  const metric = register.getSingleMetric("clib_job_runs_total");
  const values = (await metric?.get())?.values ?? [];
  return values.find((value) => value.labels.job === job && value.labels.outcome === outcome)?.value ?? 0;
}

describe("background job runs", () => {
  it("counts each run by job and outcome, and logs a failure with the job, its run id and the error", async () => {
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));

    await runJob({ name: "test-tidy", run: async () => 3 });
    await runJob({ name: "test-tidy", run: async () => 4 });
    await runJob({
      name: "test-broken",
      run: async () => {
        throw new Error("the broken job broke");
      },
    });

    expect(await runs("test-tidy", "ok")).toBe(2);
    expect(await runs("test-tidy", "failed")).toBe(0);
    expect(await runs("test-broken", "failed")).toBe(1);
    expect(logged).toHaveLength(1);
    const line = JSON.parse(logged[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: "error", job: "test-broken", msg: "job failed", err: { message: "the broken job broke" } });
    expect(line.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(line.durationMs).toEqual(expect.any(Number));
  });
});

describe("the mail outbox's gauges", () => {
  it("are read with one query per scrape, and answer it while the database is down: NaN (unknown) instead of a failed scrape", async () => {
    let down = true;
    let reads = 0;
    watchMailOutbox(async () => {
      reads += 1;
      if (down) throw new Error("connect ECONNREFUSED");
      return { depth: 3, oldestAgeSeconds: 120 };
    });
    const text = await register.metrics();
    // prom-client writes "Nan", which Prometheus reads as NaN (its parser ignores case).
    expect(text).toMatch(/^clib_mail_outbox_depth nan$/im);
    expect(text).toMatch(/^clib_mail_outbox_oldest_age_seconds nan$/im);
    // One read serves both gauges of a scrape.
    expect(reads).toBe(1);
    down = false;
    const again = await register.metrics();
    expect(reads).toBe(2);
    expect(again).toContain("clib_mail_outbox_depth 3");
    expect(again).toContain("clib_mail_outbox_oldest_age_seconds 120");
  });
});
