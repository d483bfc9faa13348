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
  const starts = buckets.map((bucket) => bucket.start);
  const ends = buckets.map((bucket) => bucket.end);
  // Each event holds from its date until the user's next event; a bucket's count is taken at its
  // end. Starting/stopping is a change of the active flag between consecutive events.
  const [snapshots, changes] = await Promise.all([
    queryRows<{ month_end: string; tier_id: string | null; title: string | null; supporters: number }>(
      `WITH spans AS (
         SELECT tier_id, tier_title, date, lead(date) OVER (PARTITION BY user_id ORDER BY date, id) AS next_date, ${ACTIVE} AS active
           FROM pledge_events WHERE date < $2::date
       ), ends AS (SELECT unnest($1::date[]) AS month_end)
       SELECT to_char(e.month_end, 'YYYY-MM-DD') AS month_end, s.tier_id,
              coalesce(max(t.title), max(s.tier_title)) AS title, count(*)::int AS supporters
         FROM spans s JOIN ends e ON s.date < e.month_end AND (s.next_date IS NULL OR s.next_date >= e.month_end)
         LEFT JOIN tiers t ON t.id = s.tier_id
        WHERE s.active GROUP BY 1, 2`,
      [ends, range.to],
    ),
    queryRows<{ month: string; gained: number; lost: number }>(
      `WITH flags AS (
         SELECT date, ${ACTIVE} AS active, lag(${ACTIVE}) OVER (PARTITION BY user_id ORDER BY date, id) AS was_active
           FROM pledge_events WHERE date < $2::date
       )
       SELECT to_char(date, 'YYYY-MM') AS month,
              count(*) FILTER (WHERE active AND NOT coalesce(was_active, false))::int AS gained,
              count(*) FILTER (WHERE NOT active AND coalesce(was_active, false))::int AS lost
         FROM flags WHERE date >= $1::date GROUP BY 1`,
      [range.from, range.to],
    ),
  ]);
  const tiers: SupporterTier[] = [];
  const tierIndex = new Map<string, number>();
  for (const row of snapshots) {
    const key = row.tier_id ?? "";
    if (tierIndex.has(key)) continue;
    tierIndex.set(key, tiers.length);
    tiers.push({ tierId: row.tier_id, title: row.tier_id ? (row.title ?? "Unknown Tier") : "No tier" });
  }
  tiers.sort((a, b) => a.title.localeCompare(b.title));
  tiers.forEach((tier, index) => tierIndex.set(tier.tierId ?? "", index));
  const months = buckets.map((bucket): SupporterMonth => {
    const byTier = tiers.map(() => 0);
    for (const row of snapshots) if (row.month_end === bucket.end) byTier[tierIndex.get(row.tier_id ?? "")!] = row.supporters;
    const change = changes.find((row) => row.month === bucket.month);
    return { ...bucket, byTier, total: byTier.reduce((sum, value) => sum + value, 0), gained: change?.gained ?? 0, lost: change?.lost ?? 0 };
  });
  return { tiers, months };
}

export function supportersTable({ tiers, months }: SupportersByMonth): DataTable {
  return {
    columns: ["Month", ...tiers.map((tier) => tier.title), "Supporters", "New supporters", "Lost supporters"],
    rows: months.map((month) => [month.month, ...month.byTier, month.total, month.gained, month.lost]),
  };
}
