// Supporters by tier over time, from the support platform's pledge history: how many accounts
// were actively pledged to each tier at the end of each month, and how many started or stopped
// supporting during it. "Active" is the entitlement rule's (pledgedTierAt): the latest event is
// not a deletion and its payment, if any, is paid.
import { queryRows } from "~/db.server";
import { monthsOf } from "~/models/insights/months";
import type { DataTable, InsightsRange } from "~/utils/insights-schemas";

export type SupporterTier = { tierId: string | null; title: string };
export type SupporterMonth = { month: string; start: string; end: string; byTier: number[]; total: number; gained: number; lost: number };
export type SupportersByMonth = { tiers: SupporterTier[]; months: SupporterMonth[] };

const ACTIVE = "(type <> 'pledge_delete' AND coalesce(lower(payment_status), 'paid') = 'paid')";

export async function supportersByMonth(range: InsightsRange): Promise<SupportersByMonth> {
  const buckets = monthsOf(range);
  // One pass over the history. Each event holds from its date until the user's next event; a
  // bucket counts what holds at its end. An active span adds one from the first bucket end after
  // it starts (width_bucket: how many ends are at or before a date) and removes one after it
  // stops, so the counts are running sums of those steps; no span is compared with every month.
  const rows = await queryRows<{ kind: "start" | "stop" | "gained" | "lost"; tier_id: string | null; title: string | null; at: string; n: number }>(
    `WITH flagged AS (
       SELECT id, user_id, tier_id, tier_title, date, ${ACTIVE} AS active FROM pledge_events WHERE date < $2::date
     ), ev AS (
       SELECT tier_id, tier_title, date, active,
              lead(date) OVER w AS next_date, lag(active) OVER w AS was_active
         FROM flagged WINDOW w AS (PARTITION BY user_id ORDER BY date, id)
     )
     SELECT 'start' AS kind, tier_id, max(tier_title) AS title, width_bucket(date, $1::timestamp[])::text AS at, count(*)::int AS n
       FROM ev WHERE active GROUP BY tier_id, 4
     UNION ALL
     SELECT 'stop', tier_id, NULL, width_bucket(next_date, $1::timestamp[])::text, count(*)::int
       FROM ev WHERE active AND next_date IS NOT NULL GROUP BY tier_id, 4
     UNION ALL
     SELECT CASE WHEN active THEN 'gained' ELSE 'lost' END, NULL, NULL, to_char(date, 'YYYY-MM'), count(*)::int
       FROM ev WHERE date >= $3::date AND active <> coalesce(was_active, false) GROUP BY 1, 4`,
    [buckets.map((bucket) => bucket.end), range.to, range.from],
  );
  const titles = await queryRows<{ id: string; title: string }>(`SELECT id, title FROM tiers`, []);
  const known = new Map(titles.map((tier) => [tier.id, tier.title]));
  const tiers: SupporterTier[] = [];
  for (const row of rows) {
    if (row.kind !== "start" || tiers.some((tier) => tier.tierId === row.tier_id)) continue;
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

export function supportersTable({ tiers, months }: SupportersByMonth): DataTable {
  return {
    columns: ["Month", ...tiers.map((tier) => tier.title), "Supporters", "New supporters", "Lost supporters"],
    rows: months.map((month) => [month.month, ...month.byTier, month.total, month.gained, month.lost]),
  };
}
