// Daily download rollups for the insights charts. Counting a year of raw download rows per
// request is too slow at a million rows, so the insights job sums complete UTC days into three
// small tables; the charts read those up to `complete_through` and the raw rows after it (today
// and anything the job has not reached), so an answer is exact whenever the job last ran.
import { db } from "~/db.server";
import { addDays, dayString } from "~/utils/insights-schemas";

/** Days rolled again on every run, in case a row arrived late (clock skew between servers). */
const REROLL_DAYS = 2;
/** How often everything is rebuilt from the first download, which catches deleted rows. */
const FULL_REBUILD_MS = 24 * 60 * 60 * 1000;

export type RollupRun = { skipped: boolean; full: boolean; from: string | null; through: string };

/** The first day not in the rollups (today or earlier), or null before the first run. */
export async function rolledThrough(): Promise<string | null> {
  const state = await db.insightsRollupState.findUnique({ where: { id: 1 } });
  return state?.completeThrough ? dayString(state.completeThrough) : null;
}

/**
 * Brings the rollups up to the day before `now` (UTC). One transaction: readers see the old
 * rollups or the new ones, never a half-rolled day. Several servers may run it; a transaction
 * advisory lock (pooler-safe) lets one do the work and the others skip.
 */
export async function refreshDownloadRollups(now = new Date(), { full = false }: { full?: boolean } = {}): Promise<RollupRun> {
  const today = dayString(now);
  return db.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('insights-rollup')) AS locked`;
      if (!lock?.locked) return { skipped: true, full: false, from: null, through: today };
      const state = await tx.insightsRollupState.findUnique({ where: { id: 1 } });
      const rebuild = full || !state?.completeThrough || !state.rebuiltAt || now.getTime() - state.rebuiltAt.getTime() >= FULL_REBUILD_MS;
      // `null` start: from the first download on.
      const from = rebuild ? null : addDays(dayString(state!.completeThrough!), -REROLL_DAYS);
      const since = from ?? "-infinity";
      await tx.$executeRaw`DELETE FROM download_day_sources WHERE day >= ${since}::date`;
      await tx.$executeRaw`DELETE FROM download_days WHERE day >= ${since}::date`;
      await tx.$executeRaw`DELETE FROM download_post_days WHERE day >= ${since}::date`;
      await tx.$executeRaw`
        INSERT INTO download_day_sources (day, access_source, downloads)
        SELECT created_at::date, access_source, count(*)::int FROM downloads
         WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1, 2`;
      await tx.$executeRaw`
        INSERT INTO download_days (day, unique_users)
        SELECT created_at::date, count(DISTINCT user_id)::int FROM downloads
         WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1`;
      await tx.$executeRaw`
        INSERT INTO download_post_days (day, post_id, downloads)
        SELECT created_at::date, post_id, count(*)::int FROM downloads
         WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1, 2`;
      await rollOwners(tx, rebuild ? null : dayString(state!.completeThrough!), today);
      const completeThrough = new Date(`${today}T00:00:00Z`);
      await tx.insightsRollupState.upsert({
        where: { id: 1 },
        create: { id: 1, completeThrough, rebuiltAt: now },
        update: rebuild ? { completeThrough, rebuiltAt: now } : { completeThrough },
      });
      return { skipped: false, full: rebuild, from, through: today };
    },
    { timeout: 10 * 60_000, maxWait: 10_000 },
  );
}

type Tx = Parameters<Parameters<typeof db.$transaction>[0]>[0];

/**
 * Owners per post and per post version: accounts whose first download of it came before `to`.
 * Distinct counts do not add up across days, so an incremental run adds only the accounts whose
 * first download falls in [from, to): those with no earlier row (the (user, post, time) index).
 * A late row dated before `from` waits for the daily full rebuild.
 */
async function rollOwners(tx: Tx, from: string | null, to: string) {
  if (!from) {
    await tx.$executeRaw`DELETE FROM download_post_owners`;
    await tx.$executeRaw`DELETE FROM download_post_versions`;
  }
  const since = from ?? "-infinity";
  await tx.$executeRaw`
    INSERT INTO download_post_owners (post_id, owners)
    SELECT d.post_id, count(DISTINCT d.user_id)::int FROM downloads d
     WHERE d.created_at >= ${since}::date AND d.created_at < ${to}::date
       AND NOT EXISTS (SELECT 1 FROM downloads e WHERE e.user_id = d.user_id AND e.post_id = d.post_id AND e.created_at < ${since}::date)
     GROUP BY d.post_id
    ON CONFLICT (post_id) DO UPDATE SET owners = download_post_owners.owners + EXCLUDED.owners`;
  await tx.$executeRaw`
    INSERT INTO download_post_versions (post_id, version, users)
    SELECT d.post_id, d.version, count(DISTINCT d.user_id)::int FROM downloads d
     WHERE d.created_at >= ${since}::date AND d.created_at < ${to}::date
       AND NOT EXISTS (SELECT 1 FROM downloads e WHERE e.user_id = d.user_id AND e.post_id = d.post_id AND e.version = d.version AND e.created_at < ${since}::date)
     GROUP BY d.post_id, d.version
    ON CONFLICT (post_id, version) DO UPDATE SET users = download_post_versions.users + EXCLUDED.users`;
}

/**
 * Where a range splits between rollups and raw rows: rolled days are [from, split), raw days
 * [split, to). Days never rolled up are all read raw, which is exact, only slower.
 */
export function splitDay(range: { from: string; to: string }, completeThrough: string | null): string {
  if (!completeThrough || completeThrough < range.from) return range.from;
  return completeThrough > range.to ? range.to : completeThrough;
}
