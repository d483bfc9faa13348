// Daily rollups for the insights charts. Counting a year of raw download rows, or walking two
// years of pledge history, per request is too slow, so the insights job sums complete UTC days
// into small tables; the charts read those up to `complete_through` (`supporters_through`) and
// the raw rows after it (today and anything the job has not reached). Triggers mark the days a
// later change touched (`insights_changes`): the supporters chart reads those days raw until the
// job has rolled them again; for downloads a mark makes the next run rebuild.
import { db } from "~/db.server";
import { pledgeStepsSql } from "~/models/insights/supporters.server";
import { addDays, dayString } from "~/utils/insights-schemas";

/** Days rolled again on every run, in case a row arrived late (clock skew between servers). */
const REROLL_DAYS = 2;
/** How often everything is rebuilt from the first row, whatever the marks say. */
const FULL_REBUILD_MS = 24 * 60 * 60 * 1000;

export type RollupRun = { skipped: boolean; full: boolean; from: string | null; through: string };

/** The first day not in the rollups (today or earlier), or null before the first run. */
export async function rolledThrough(): Promise<string | null> {
  const state = await db.insightsRollupState.findUnique({ where: { id: 1 } });
  return state?.completeThrough ? dayString(state.completeThrough) : null;
}

/**
 * Brings the download rollups up to the day before `now` (UTC) and the supporter rollups up to
 * `now` itself (today's pledge events so far included). One transaction: readers see the old
 * rollups or the new ones, never a half-rolled day. Several servers may run it; a transaction
 * advisory lock (pooler-safe) lets one do the work and the others skip.
 *
 * Downloads are rolled again from two days back (late rows); a deletion or change the triggers
 * marked on an earlier day makes this run a full rebuild, as does the daily one. Supporters are
 * rolled from the day the last run reached, or from the earliest day a pledge change marked.
 */
export async function refreshInsightsRollups(now = new Date(), { full = false }: { full?: boolean } = {}): Promise<RollupRun> {
  const today = dayString(now);
  return db.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('insights-rollup')) AS locked`;
      if (!lock?.locked) return { skipped: true, full: false, from: null, through: today };
      const state = await tx.insightsRollupState.findUnique({ where: { id: 1 } });
      // The marks this run sees; marks committed later stay for the next run (and the readers).
      const marks = await tx.$queryRaw<{ source: string; at: string }[]>`
        WITH taken AS (DELETE FROM insights_changes RETURNING source, at)
        SELECT source, min(at)::date::text AS at FROM taken GROUP BY source`;
      /** The day of the earliest change marked for a source ('-infinity' after a TRUNCATE). */
      const marked = (source: string) => marks.find((mark) => mark.source === source)?.at ?? null;
      const rolled = state?.completeThrough ? dayString(state.completeThrough) : null;
      const reroll = rolled ? addDays(rolled, -REROLL_DAYS) : null;
      const downloadsMark = marked("downloads");
      const rebuild =
        full ||
        !reroll ||
        !state?.rebuiltAt ||
        now.getTime() - state.rebuiltAt.getTime() >= FULL_REBUILD_MS ||
        // A change to a day the owners already count: distinct owners cannot be patched.
        (downloadsMark !== null && rolled !== null && downloadsMark < rolled);
      // `null` start: from the first download on.
      const from = rebuild ? null : reroll;
      await rollDownloads(tx, from, today);
      await rollOwners(tx, rebuild ? null : rolled, today);
      // Supporters: again from the day the last run reached, or the earliest marked day.
      const supportersFrom = rebuild || !state?.supportersThrough ? null : earlierDay(dayString(state.supportersThrough), marked("pledges"));
      await rollSupporters(tx, supportersFrom, now);
      if (rebuild) await tx.$executeRawUnsafe(`ANALYZE download_day_sources, download_days, download_post_days, supporter_tier_days, supporter_days`);
      const completeThrough = new Date(`${today}T00:00:00Z`);
      await tx.insightsRollupState.upsert({
        where: { id: 1 },
        create: { id: 1, completeThrough, rebuiltAt: now, supportersThrough: now },
        update: rebuild ? { completeThrough, rebuiltAt: now, supportersThrough: now } : { completeThrough, supportersThrough: now },
      });
      return { skipped: false, full: rebuild, from, through: today };
    },
    { timeout: 10 * 60_000, maxWait: 10_000 },
  );
}

/** The earlier of two days (YYYY-MM-DD); '-infinity' (a truncated table) sorts first as text too. */
function earlierDay(a: string, b: string | null): string {
  return b !== null && b < a ? b : a;
}

type Tx = Parameters<Parameters<typeof db.$transaction>[0]>[0];

/**
 * Downloads per day and source, unique users per day, and downloads per post and day with the
 * post's running total through that day, for the days in [from, to) (`null`: from the first).
 */
async function rollDownloads(tx: Tx, from: string | null, today: string) {
  const since = from ?? "-infinity";
  await tx.$executeRaw`DELETE FROM download_day_sources WHERE day >= ${since}::date`;
  await tx.$executeRaw`DELETE FROM download_days WHERE day >= ${since}::date`;
  await tx.$executeRaw`DELETE FROM download_post_days WHERE day >= ${since}::date`;
  // Guests' free downloads count as Free; they have no account, so no unique user or owner.
  await tx.$executeRaw`
    INSERT INTO download_day_sources (day, access_source, downloads)
    SELECT day, source::download_access, sum(downloads)::int FROM (
      SELECT created_at::date AS day, access_source::text AS source, count(*) AS downloads FROM downloads
       WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1, 2
      UNION ALL
      SELECT created_at::date, 'FREE', count(*) FROM guest_downloads
       WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1
    ) parts GROUP BY 1, 2`;
  await tx.$executeRaw`
    INSERT INTO download_days (day, unique_users)
    SELECT created_at::date, count(DISTINCT user_id)::int FROM downloads
     WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1`;
  // Running totals continue from the post's last row kept before `since` (one lookup per post).
  await tx.$executeRaw`
    WITH counts AS (
      SELECT day, post_id, sum(downloads)::int AS downloads FROM (
        SELECT created_at::date AS day, post_id, count(*) AS downloads FROM downloads
         WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1, 2
        UNION ALL
        SELECT created_at::date, post_id, count(*) FROM guest_downloads
         WHERE created_at >= ${since}::date AND created_at < ${today}::date GROUP BY 1, 2
      ) parts GROUP BY 1, 2
    ), base AS (
      SELECT ids.post_id,
             (SELECT b.running_total FROM download_post_days b WHERE b.post_id = ids.post_id AND b.day < ${since}::date ORDER BY b.day DESC LIMIT 1) AS total
        FROM (SELECT DISTINCT post_id FROM counts) ids
    )
    INSERT INTO download_post_days (day, post_id, downloads, running_total)
    SELECT c.day, c.post_id, c.downloads, (coalesce(base.total, 0) + sum(c.downloads) OVER (PARTITION BY c.post_id ORDER BY c.day))::int
      FROM counts c LEFT JOIN base ON base.post_id = c.post_id`;
}

/**
 * Supporter steps per day and tier, and supporters gained and lost per day, for the pledge
 * events dated from the day `from` (`null`: all of them) until `now`; today's rows are partial,
 * and the chart reads the events from `now` on. See `pledgeStepsSql`.
 */
async function rollSupporters(tx: Tx, from: string | null, now: Date) {
  const since = from ?? "-infinity";
  await tx.$executeRaw`DELETE FROM supporter_tier_days WHERE day >= ${since}::date`;
  await tx.$executeRaw`DELETE FROM supporter_days WHERE day >= ${since}::date`;
  const events = pledgeStepsSql("$1::date", "$2::timestamp");
  await tx.$executeRawUnsafe(
    `WITH ev AS (${events})
     INSERT INTO supporter_tier_days (day, tier_id, started, stopped, title)
     SELECT day, tier, sum(started)::int, sum(stopped)::int, max(title) FROM (
       SELECT date::date AS day, coalesce(tier_id, '') AS tier, 1 AS started, 0 AS stopped, tier_title AS title FROM ev WHERE active
       UNION ALL
       SELECT date::date, coalesce(prev_tier, ''), 0, 1, NULL FROM ev WHERE was_active
     ) steps GROUP BY 1, 2`,
    since,
    now,
  );
  await tx.$executeRawUnsafe(
    `WITH ev AS (${events})
     INSERT INTO supporter_days (day, gained, lost)
     SELECT date::date, count(*) FILTER (WHERE active AND NOT coalesce(was_active, false))::int,
            count(*) FILTER (WHERE NOT active AND coalesce(was_active, false))::int
       FROM ev GROUP BY 1`,
    since,
    now,
  );
}

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
