// One run of a background job, however it was started (the timers of app/jobs.server.ts, an
// admin forcing the support-platform sync): logged at its start and end under one run id, and
// counted by outcome in clib_job_runs_total. Apart from app/jobs.server.ts, which imports the
// jobs themselves: a job's module may run itself through here without an import cycle.
import { randomUUID } from "node:crypto";
import { errorFields, log } from "~/logger.server";
import { jobRuns } from "~/metrics.server";

/** How the run was started, on its log lines (`timer`, `admin`). */
export type JobTrigger = "timer" | "admin";

/**
 * Runs `run` as one run of `job`: "job started", then "job finished" (with `durationMs` and the
 * fields `describe` gives of its result) or "job failed" (level error, with the error), counted
 * `ok` or `failed`. A failure is thrown on to the caller.
 */
export async function trackJobRun<T>(job: string, trigger: JobTrigger, run: () => Promise<T>, describe?: (result: T) => object): Promise<T> {
  const logger = log().child({ job, runId: randomUUID(), trigger });
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  logger.info("job started");
  try {
    const result = await run();
    jobRuns().inc({ job, outcome: "ok" });
    logger.info({ durationMs: durationMs(), ...describe?.(result) }, "job finished");
    return result;
  } catch (error) {
    jobRuns().inc({ job, outcome: "failed" });
    logger.error({ durationMs: durationMs(), ...errorFields(error) }, "job failed");
    throw error;
  }
}
