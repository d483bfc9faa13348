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
 * What a finished run says of itself: fields for its last line, and the error of a run that
 * failed without throwing (a sync the support platform refused still returns its summary).
 */
export type RunAccount = { fields: object; failure?: unknown };

/**
 * Runs `run` as one run of `job`: "job started", then "job finished" (with `durationMs` and the
 * fields `account` gives of its result) or "job failed" (level error, with the error), counted
 * `ok` or `failed`. A thrown error is thrown on to the caller; a failure the result reports is
 * logged and counted, and the result returned.
 */
export async function trackJobRun<T>(job: string, trigger: JobTrigger, run: () => Promise<T>, account?: (result: T) => RunAccount): Promise<T> {
  const logger = log().child({ job, runId: randomUUID(), trigger });
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const failed = (fields: object, error: unknown) => {
    jobRuns().inc({ job, outcome: "failed" });
    logger.error({ durationMs: durationMs(), ...fields, ...errorFields(error) }, "job failed");
  };
  logger.info("job started");
  let result: T;
  try {
    result = await run();
  } catch (error) {
    failed({}, error);
    throw error;
  }
  const { fields, failure } = account?.(result) ?? { fields: {} };
  if (failure !== undefined) {
    failed(fields, failure);
  } else {
    jobRuns().inc({ job, outcome: "ok" });
    logger.info({ durationMs: durationMs(), ...fields }, "job finished");
  }
  return result;
}
