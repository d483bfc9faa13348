// Calendar months (UTC) of a range, clipped to it: the first and last month may be partial, so a
// monthly chart never counts anything outside the days the admin chose.
import type { InsightsRange } from "~/utils/insights-schemas";

export type MonthBucket = { month: string; start: string; end: string };

export function monthsOf(range: Pick<InsightsRange, "from" | "to">): MonthBucket[] {
  const buckets: MonthBucket[] = [];
  let cursor = `${range.from.slice(0, 7)}-01`;
  while (cursor < range.to) {
    const date = new Date(`${cursor}T00:00:00Z`);
    const next = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
    buckets.push({ month: cursor.slice(0, 7), start: cursor < range.from ? range.from : cursor, end: next > range.to ? range.to : next });
    cursor = next;
  }
  return buckets;
}
