// The "interval" job: pages through every member of the creator's campaign and updates our
// users' tiers, pledge histories and rule-5 unlocks. Runs on a timer and on admin request; a
// PostgreSQL advisory lock lets only one app server run it at a time. Each page is applied in
// its own transaction, so a failure leaves earlier pages applied and the failing page as it was.
import pg from "pg";
import { db } from "~/db.server";
import { env } from "~/env.server";
import { createPatreonClient, type Sleep } from "~/integrations/patreon.server";
import { trackJobRun, type RunAccount } from "~/job-run.server";
import { log } from "~/logger.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { applyMember } from "~/models/patreon-membership.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";

export const INTERVAL_JOB = "interval";
/** Arbitrary but fixed: every app server must use the same key. */
const LOCK_KEY = 7_351_002_001;

export type SyncSummary = {
  status: "succeeded" | "failed" | "skipped";
  jobRunId: string | null;
  pages: number;
  members: number;
  /** Members linked to an account here. */
  matched: number;
  tierChanges: number;
  /** Linked accounts the platform no longer lists as members: their tier was cleared. */
  tiersCleared: number;
  rateLimitRetries: number;
  error?: string;
};

/**
 * Runs `run` while holding a transaction-level advisory lock: an open transaction on a connection
 * of its own takes it, and ending that transaction releases it. A transaction keeps its server
 * connection even behind a transaction-mode pooler, where a session-level lock could be taken on
 * one server connection and released on another, or never. DIRECT_DATABASE_URL, when set, skips
 * the pooler for this long-lived transaction.
 */
async function withAdvisoryLock<T>(run: () => Promise<T>): Promise<{ locked: false } | { locked: true; value: T }> {
  const config = env();
  // Bounded as the app's pool is (app/db.server.ts): a database that stops answering fails the run.
  const connection = new pg.Client({
    connectionString: config.DIRECT_DATABASE_URL ?? config.DATABASE_URL,
    connectionTimeoutMillis: config.DATABASE_TIMEOUT_MS,
    query_timeout: config.DATABASE_TIMEOUT_MS,
  });
  // A connection dropped mid-run (a restart, an idle-in-transaction timeout) only ends the lock;
  // without a listener the 'error' event would end the process.
  connection.on("error", (error) => log().warn(`interval lock connection lost: ${error.message}`));
  await connection.connect();
  try {
    await connection.query("BEGIN");
    const { rows } = await connection.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [LOCK_KEY]);
    if (!rows[0]?.locked) return { locked: false };
    return { locked: true, value: await run() };
  } finally {
    await connection.query("ROLLBACK").catch(() => undefined);
    await connection.end().catch(() => undefined);
  }
}

export type RunOptions = {
  trigger: "timer" | "admin";
  /** For tests: waits on 429 without real sleeping. */
  sleep?: Sleep;
};

/** One sync, whatever its outcome: the summary its jobRun row keeps, and the error a failed sync caught. */
export type IntervalSyncRun = { summary: SyncSummary; failure?: unknown };

/**
 * A run's account for its last line (app/job-run.server.ts): a failed sync is a failed run, with
 * its error. The sync's status is `syncStatus`: `status` on a log line is a request's HTTP status.
 */
export function intervalRunAccount({ summary, failure }: IntervalSyncRun): RunAccount {
  const { status, pages, members, matched, tierChanges, tiersCleared, error } = summary;
  return {
    fields: { syncStatus: status, pages, members, matched, tierChanges, tiersCleared, reason: error },
    failure: status === "failed" ? (failure ?? new Error(error)) : undefined,
  };
}

/** One sync, as the timer and an admin run it (each through trackJobRun, which logs and counts it). */
export async function runIntervalSync({ trigger, sleep }: RunOptions): Promise<IntervalSyncRun> {
  const config = env();
  const empty: SyncSummary = {
    status: "skipped",
    jobRunId: null,
    pages: 0,
    members: 0,
    matched: 0,
    tierChanges: 0,
    tiersCleared: 0,
    rateLimitRetries: 0,
  };
  // Unconfigured sites have nothing to sync: the timer stays quiet, an admin gets told why.
  if (!config.PATREON_CREATOR_ACCESS_TOKEN && trigger === "timer") return { summary: { ...empty, error: "not configured" } };

  const outcome = await withAdvisoryLock(async () => {
    const run = await db.jobRun.create({ data: { job: INTERVAL_JOB, trigger, status: "running" } });
    const summary: SyncSummary = { ...empty, status: "succeeded", jobRunId: run.id };
    let caught: unknown;
    const client = createPatreonClient({ accessToken: config.PATREON_CREATOR_ACCESS_TOKEN ?? "", sleep });
    try {
      if (!config.PATREON_CREATOR_ACCESS_TOKEN) throw new Error("PATREON_CREATOR_ACCESS_TOKEN is not set.");
      const campaignId = config.PATREON_CAMPAIGN_ID ?? (await client.firstCampaignId());
      const seen = new Set<string>();
      for await (const page of client.memberPages(campaignId)) {
        const applied = await db.$transaction(
          async (tx) => {
            const results = [];
            for (const member of page.members) results.push(await applyMember(member, tx));
            return results;
          },
          { timeout: 120_000, maxWait: 30_000 },
        );
        summary.pages += 1;
        summary.members += page.members.length;
        for (const result of applied) {
          if (!result) continue;
          seen.add(result.userId);
          summary.matched += 1;
          if (result.changed) summary.tierChanges += 1;
        }
      }
      // Only after every page came through: a linked account that is no longer a member.
      const { count } = await db.user.updateMany({
        where: { patreonId: { not: null }, currentTierId: { not: null }, id: { notIn: [...seen] } },
        data: { currentTierId: null },
      });
      summary.tiersCleared = count;
    } catch (error) {
      // Logged by whoever ran the sync as a job (intervalRunAccount): a failed run, with this error.
      summary.status = "failed";
      summary.error = error instanceof Error ? error.message : String(error);
      caught = error;
    }
    summary.rateLimitRetries = client.retries;
    const { jobRunId: _id, error: failure, ...counts } = summary;
    await db.jobRun.update({
      where: { id: run.id },
      data: { status: summary.status, summary: counts, error: failure ?? null, finishedAt: new Date() },
    });
    return { summary, failure: caught };
  });

  if (!outcome.locked) return { summary: { ...empty, error: "The interval job is already running." } };
  return outcome.value;
}

/**
 * Force interval (the /admin page and POST /api/admin/force-interval): runs the sync now, as a
 * job run like the timer's (logged under a run id with trigger "admin", counted by outcome), and
 * audits what it did, whatever the outcome. A run that did not succeed is refused with its
 * summary: 409 when another run holds the lock, 502 when the support platform failed.
 */
export async function forceIntervalSync(actorId: string, options: Pick<RunOptions, "sleep"> = {}): Promise<SyncSummary> {
  const { summary } = await trackJobRun(INTERVAL_JOB, "admin", () => runIntervalSync({ trigger: "admin", sleep: options.sleep }), intervalRunAccount);
  await recordAudit({ actorId, action: "interval.force", targetType: "job", targetId: summary.jobRunId, after: summary });
  if (summary.status !== "succeeded") {
    throw new DomainError(summary.status === "skipped" ? 409 : 502, ADMIN_MESSAGES.forceIntervalFailed, {
      extra: { details: summary.error, summary },
    });
  }
  return summary;
}

/** The latest runs, newest first, for the admin page. */
export async function recentSyncRuns(take = 10) {
  return db.jobRun.findMany({ where: { job: INTERVAL_JOB }, orderBy: { startedAt: "desc" }, take });
}
