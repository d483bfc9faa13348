// Supporters by tier over time, from the support platform's pledge history: how many accounts
// were actively pledged to each tier at the end of each month, and how many started or stopped
// supporting during it; and the members per tier now, from each account's current tier. "Active" is the entitlement rule's (pledgedTierAt): the latest event is
// not a deletion and its payment, if any, is paid.
import { queryRows } from "~/db.server";
import { monthsOf } from "~/models/insights/months";
import type { DataTable, InsightsRange } from "~/utils/insights-schemas";

export type SupporterTier = { tierId: string | null; title: string };
export type SupporterMonth = { month: string; start: string; end: string; byTier: number[]; total: number; gained: number; lost: number };
export type SupportersByMonth = { tiers: SupporterTier[]; months: SupporterMonth[] };

const active = (alias: string) => `(${alias}.type <> 'pledge_delete' AND coalesce(lower(${alias}.payment_status), 'paid') = 'paid')`;

/**
 * The pledge events dated in [from, to) (SQL expressions), each with what it changes: an active
 * event starts a span in its tier, and it ends its user's previous span (the event before it in
 * (date, id) order, which may be older than `from`) on its own date. Every effect of an event is
 * on its own day or later, so days before `from` never depend on these rows. Shared by the chart
 * (days the rollups do not hold) and the rollup job (the days it rolls).
 */
export function pledgeStepsSql(from: string, to: string): string {
  return `SELECT e.date, e.tier_id, e.tier_title, ${active("e")} AS active, prev.active AS was_active, prev.tier_id AS prev_tier
      FROM pledge_events e
      LEFT JOIN LATERAL (
        SELECT p.tier_id, ${active("p")} AS active FROM pledge_events p
         WHERE p.user_id = e.user_id AND p.date <= e.date AND (p.date < e.date OR p.id < e.id)
         ORDER BY p.date DESC, p.id DESC LIMIT 1
      ) prev ON true
     WHERE e.date >= ${from} AND e.date < ${to}`;
}

export async function supportersByMonth(range: InsightsRange): Promise<SupportersByMonth> {
  const buckets = monthsOf(range);
  // Each event holds from its date until the user's next event; a bucket counts what holds at
  // its end. A span adds one from the first bucket end after it starts (width_bucket: how many
  // ends are at or before a day) and removes one from the first end after it stops, so the
  // counts are running sums of those steps. Steps of the events the job has rolled up come from
  // its daily rows (the last one partial: today's events before the run), later ones from the
  // events themselves. When a trigger has marked a change to rolled events since (a late event,
  // a deleted account), rows from the day of the earliest mark on are read raw instead, so the
  // answer is exact before the job catches up. One statement: one snapshot of rollups and events.
  const rows = await queryRows<{
    kind: "start" | "stop" | "title" | "gained" | "lost";
    tier_id: string | null;
    title: string | null;
    at: string | null;
    n: number;
  }>(
    `WITH state AS (
       SELECT (SELECT supporters_through FROM insights_rollup_state WHERE id = 1) AS rolled,
              (SELECT min(at) FROM insights_changes WHERE source = 'pledges') AS changed
     ), cut AS (
       -- rows_before: daily rows used for days before it; raw_from: events read from it on.
       SELECT CASE WHEN rolled IS NULL THEN '-infinity'::date WHEN changed IS NULL OR changed >= rolled THEN rolled::date + 1 ELSE changed::date END AS rows_before,
              CASE WHEN rolled IS NULL THEN '-infinity'::timestamp WHEN changed IS NULL OR changed >= rolled THEN rolled ELSE changed::date::timestamp END AS raw_from
         FROM state
     ), ev AS (
       ${pledgeStepsSql("(SELECT raw_from FROM cut)", "$2::date")}
     ), steps AS (
       SELECT tier_id AS tier, day, started, stopped, title FROM supporter_tier_days WHERE day < (SELECT rows_before FROM cut) AND day < $2::date
       UNION ALL
       SELECT coalesce(tier_id, ''), date::date, 1, 0, tier_title FROM ev WHERE active
       UNION ALL
       SELECT coalesce(prev_tier, ''), date::date, 0, 1, NULL FROM ev WHERE was_active
     ), changes AS (
       SELECT day, gained, lost FROM supporter_days WHERE day >= $3::date AND day < (SELECT rows_before FROM cut) AND day < $2::date
       UNION ALL
       SELECT date::date, (active AND NOT coalesce(was_active, false))::int, (NOT active AND coalesce(was_active, false))::int
         FROM ev WHERE date >= $3::date
     )
     SELECT 'start' AS kind, nullif(tier, '') AS tier_id, NULL AS title, width_bucket(day::timestamp, $1::timestamp[])::text AS at, sum(started)::int AS n
       FROM steps WHERE started > 0 GROUP BY tier, 4
     UNION ALL
     SELECT 'stop', nullif(tier, ''), NULL, width_bucket(day::timestamp, $1::timestamp[])::text, sum(stopped)::int
       FROM steps WHERE stopped > 0 GROUP BY tier, 4
     UNION ALL
     SELECT 'title', nullif(tier, ''), max(title), NULL, 0 FROM steps WHERE started > 0 GROUP BY tier
     UNION ALL
     SELECT 'gained', NULL, NULL, to_char(day, 'YYYY-MM'), sum(gained)::int FROM changes GROUP BY 4
     UNION ALL
     SELECT 'lost', NULL, NULL, to_char(day, 'YYYY-MM'), sum(lost)::int FROM changes GROUP BY 4`,
    [buckets.map((bucket) => bucket.end), range.to, range.from],
  );
  const titles = await queryRows<{ id: string; title: string }>(`SELECT id, title FROM tiers`, []);
  const known = new Map(titles.map((tier) => [tier.id, tier.title]));
  const tiers: SupporterTier[] = [];
  // Every tier with a span that began before the range's end; its listed title, or else the
  // highest title its events carried.
  for (const row of rows) {
    if (row.kind !== "title") continue;
    tiers.push({ tierId: row.tier_id, title: row.tier_id ? (known.get(row.tier_id) ?? row.title ?? "Unknown Tier") : "No tier" });
  }
  tiers.sort((a, b) => a.title.localeCompare(b.title) || String(a.tierId).localeCompare(String(b.tierId)));
  // steps[tier][bucket]: +1 where a span starts counting, -1 where it stops.
  const steps = tiers.map(() => buckets.map(() => 0).concat(0));
  for (const row of rows) {
    if (row.kind !== "start" && row.kind !== "stop") continue;
    const tier = tiers.findIndex((entry) => entry.tierId === row.tier_id);
    if (tier >= 0) steps[tier]![Math.min(Number(row.at), buckets.length)]! += row.kind === "start" ? row.n : -row.n;
  }
  const running = tiers.map(() => 0);
  const months = buckets.map((bucket, index): SupporterMonth => {
    const byTier = tiers.map((_, tier) => (running[tier]! += steps[tier]![index]!));
    const change = (kind: "gained" | "lost") => rows.find((row) => row.kind === kind && row.at === bucket.month)?.n ?? 0;
    return { ...bucket, byTier, total: byTier.reduce((sum, value) => sum + value, 0), gained: change("gained"), lost: change("lost") };
  });
  // Tiers nobody held at any bucket end stay out of the chart.
  const shown = tiers.map((_, tier) => months.some((month) => month.byTier[tier]! > 0));
  return {
    tiers: tiers.filter((_, tier) => shown[tier]),
    months: months.map((month) => ({ ...month, byTier: month.byTier.filter((_, tier) => shown[tier]) })),
  };
}

export type TierMembers = { tierId: string; title: string; members: number };
export type CurrentMembers = { total: number; tiers: TierMembers[] };

/**
 * Accounts with a current tier now, per tier: the tier each account's entitlement reads
 * (`users.current_tier_id`, kept by the members sync and the support platform's webhook), which
 * may hold members whose pledge history has not been imported. Cheapest tier first; an id the
 * site has no tier row for is listed as "Unknown Tier (id)".
 */
export async function currentMembersByTier(): Promise<CurrentMembers> {
  const rows = await queryRows<{ tier_id: string; title: string | null; members: number }>(
    `SELECT u.current_tier_id AS tier_id, t.title, count(*)::int AS members
       FROM users u LEFT JOIN tiers t ON t.id = u.current_tier_id
      WHERE u.current_tier_id IS NOT NULL
      GROUP BY u.current_tier_id, t.title, t.amount_cents
      ORDER BY t.amount_cents ASC NULLS LAST, t.title, u.current_tier_id`,
    [],
  );
  const tiers = rows.map((row) => ({ tierId: row.tier_id, title: row.title ?? `Unknown Tier (${row.tier_id})`, members: row.members }));
  return { total: tiers.reduce((sum, tier) => sum + tier.members, 0), tiers };
}

export function supportersTable({ tiers, months }: SupportersByMonth): DataTable {
  return {
    columns: ["Month", ...tiers.map((tier) => tier.title), "Supporters", "New supporters", "Lost supporters"],
    rows: months.map((month) => [month.month, ...month.byTier, month.total, month.gained, month.lost]),
  };
}
