// Background jobs of this app server. Each job guards itself against running on several
// servers at once (advisory locks, or the mail outbox's row claims); this module only schedules them.
import { env } from "~/env.server";
import { discordConfig } from "~/integrations/discord.server";
import { trackJobRun, type RunAccount } from "~/job-run.server";
import { watchMailOutbox } from "~/metrics.server";
import { deleteExpiredApiTokens } from "~/models/api-token.server";
import { pruneDiscordJobs, reconcileDiscordRoles, runDiscordRoleSync } from "~/models/discord-roles.server";
import { refreshInsightsRollups } from "~/models/insights/rollup.server";
import { intervalRunAccount, runIntervalSync } from "~/models/interval-sync.server";
import { pruneOldDownloads } from "~/models/my-library.server";
import { deliverDueMail, outboxBacklog, pruneMailOutbox } from "~/models/mail-outbox.server";
import { runReleaseMails } from "~/models/release-mail.server";
import { backfillAllVersionHashes } from "~/models/post-version-backfill.server";
import { deleteExpiredRateLimits } from "~/models/rate-limit.server";
import { deleteExpiredSessions } from "~/models/session.server";
import { cleanUpAbandonedUploads } from "~/models/upload-session.server";
import { runUpdateDigests } from "~/models/update-digest.server";
import { deleteExpiredCodes } from "~/models/verification.server";

const HOUR_MS = 60 * 60 * 1000;
/** How often each server looks for due mail (the first retry after a failure comes 30 s later). */
const MAIL_OUTBOX_EVERY_MS = 15_000;
/** How often the Discord roles are recomputed: a change of access reaches Discord within a minute. */
const DISCORD_ROLES_EVERY_MS = 20_000;

/** `account`: what a run's result says of it on its last line (app/job-run.server.ts). */
type Job = { name: string; everyMs: number; run: () => Promise<unknown>; account?(result: unknown): RunAccount };

function jobs(): Job[] {
  // Without the bot's settings the Discord jobs would only start and end, three times a minute in the log.
  const discordOn = discordConfig() !== null;
  return [
    // Housekeeping: expired sessions, API tokens, emailed codes and rate-limit windows are removed hourly.
    { name: "expired-sessions", everyMs: HOUR_MS, run: () => deleteExpiredSessions() },
    { name: "expired-api-tokens", everyMs: HOUR_MS, run: () => deleteExpiredApiTokens() },
    { name: "expired-codes", everyMs: HOUR_MS, run: () => deleteExpiredCodes() },
    { name: "expired-rate-limits", everyMs: HOUR_MS, run: () => deleteExpiredRateLimits() },
    // Insights: yesterday's downloads and the pledge history so far join the rollups (and a daily full rebuild).
    { name: "insights-rollup", everyMs: HOUR_MS, run: () => refreshInsightsRollups() },
    // Download records older than DOWNLOAD_RETENTION_DAYS (the privacy page's promise).
    { name: "download-retention", everyMs: HOUR_MS, run: () => pruneOldDownloads() },
    // Post versions made from files that existed before versions: their SHA-256, content hash
    // and ZIP entries, read once per file.
    { name: "version-hashes", everyMs: HOUR_MS, run: () => backfillAllVersionHashes() },
    // Update digest mails: checked hourly, sent once per UPDATE_DIGEST_HOURS for the whole cluster.
    { name: "update-digest", everyMs: HOUR_MS, run: () => runUpdateDigests() },
    // Release mails: a post a release step opened, mailed at once to those who asked (one run per cluster).
    { name: "release-mail", everyMs: 60_000, run: () => runReleaseMails() },
    // The mail outbox's sender: every server sends what is due; each message is claimed by one
    // sender (FOR UPDATE SKIP LOCKED), so servers share the work and never send a message twice.
    { name: "mail-outbox", everyMs: MAIL_OUTBOX_EVERY_MS, run: () => deliverDueMail() },
    // Sent and given-up mails older than 30 days leave the outbox.
    { name: "mail-outbox-prune", everyMs: HOUR_MS, run: () => pruneMailOutbox() },
    // Discord roles that follow access (docs/product.md#discord-roles): every 20 s the roles of
    // linked accounts are recomputed, the differences queued and sent (one planner per cluster),
    // so a change of access shows on Discord within a minute whatever caused it. Not scheduled
    // without DISCORD_BOT_TOKEN and DISCORD_GUILD_ID.
    { name: "discord-roles", everyMs: discordOn ? DISCORD_ROLES_EVERY_MS : 0, run: () => runDiscordRoleSync() },
    // Hourly: each member's roles as Discord holds them, drift repaired.
    { name: "discord-reconcile", everyMs: discordOn ? HOUR_MS : 0, run: () => reconcileDiscordRoles() },
    { name: "discord-jobs-prune", everyMs: HOUR_MS, run: () => pruneDiscordJobs() },
    // Resumable uploads with no part for UPLOAD_ABANDON_HOURS (24 h): S3 multipart uploads aborted, local parts deleted.
    { name: "upload-cleanup", everyMs: HOUR_MS, run: () => cleanUpAbandonedUploads() },
    // Support-platform sync; INTERVAL_MINUTES=0 turns the timer off (admins can still force it, as
    // the same kind of run). A sync the platform failed is a failed run.
    { name: "interval", everyMs: env().INTERVAL_MINUTES * 60 * 1000, run: () => runIntervalSync({ trigger: "timer" }), account: intervalRunAccount },
  ];
}

const globalForJobs = globalThis as unknown as { __jobsStarted?: boolean };

export function startBackgroundJobs() {
  if (globalForJobs.__jobsStarted || env().NODE_ENV === "test" || env().DISABLE_JOBS) return;
  globalForJobs.__jobsStarted = true;
  // The process that sends the outbox reports its backlog (one query per scrape for the cluster).
  watchMailOutbox(() => outboxBacklog());
  for (const job of jobs()) {
    if (job.everyMs <= 0) continue;
    const timer = setInterval(() => void runJob(job), job.everyMs);
    timer.unref();
  }
}

/** One timed run of a job: logged at its start and end under one run id, and counted by outcome (app/job-run.server.ts). */
export async function runJob(job: Pick<Job, "name" | "run" | "account">): Promise<void> {
  // Logged and counted there; the next tick runs it again.
  await trackJobRun(job.name, "timer", job.run, job.account).catch(() => undefined);
}
