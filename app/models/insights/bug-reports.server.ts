// Bug report insights (docs/product.md#bug-reports): the open reports per post now (new and
// confirmed, whatever the range), and the time from report to fix of the reports fixed in the
// range: the median over all of them, and per post.
import { queryRows } from "~/db.server";
import type { DataTable, InsightsRange } from "~/utils/insights-schemas";

export type PostBugs = { postId: string; title: string; new: number; confirmed: number; open: number; fixed: number; medianDaysToFix: number | null };
export type BugInsights = { posts: PostBugs[]; open: number; fixed: number; medianDaysToFix: number | null };

const HOUR_MS = 3_600_000;

/** Days with one decimal (a fix within the hour is 0.0). */
function days(hours: number | null): number | null {
  return hours === null ? null : Math.round((hours / 24) * 10) / 10;
}

export async function bugReportInsights(range: InsightsRange): Promise<BugInsights> {
  const [perPost, overall] = await Promise.all([
    queryRows<{ post_id: string; title: string; new: number; confirmed: number; fixed: number; median_hours: number | null }>(
      `SELECT p.id AS post_id, p.title,
              count(*) FILTER (WHERE r.state = 'NEW')::int AS new,
              count(*) FILTER (WHERE r.state = 'CONFIRMED')::int AS confirmed,
              count(*) FILTER (WHERE r.state = 'FIXED' AND r.fixed_at >= $1::date AND r.fixed_at < $2::date)::int AS fixed,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.fixed_at - r.created_at))
                 FILTER (WHERE r.state = 'FIXED' AND r.fixed_at >= $1::date AND r.fixed_at < $2::date)) / ${HOUR_MS / 1000} AS median_hours
         FROM bug_reports r JOIN posts p ON p.id = r.post_id
        GROUP BY p.id, p.title`,
      [range.from, range.to],
    ),
    queryRows<{ fixed: number; median_hours: number | null }>(
      `SELECT count(*)::int AS fixed,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM fixed_at - created_at)) / ${HOUR_MS / 1000} AS median_hours
         FROM bug_reports WHERE state = 'FIXED' AND fixed_at >= $1::date AND fixed_at < $2::date`,
      [range.from, range.to],
    ),
  ]);
  const posts = perPost
    .map((row) => ({
      postId: row.post_id,
      title: row.title,
      new: row.new,
      confirmed: row.confirmed,
      open: row.new + row.confirmed,
      fixed: row.fixed,
      medianDaysToFix: days(row.median_hours === null ? null : Number(row.median_hours)),
    }))
    .filter((post) => post.open > 0 || post.fixed > 0)
    .sort((a, b) => b.open - a.open || b.fixed - a.fixed || a.title.localeCompare(b.title) || a.postId.localeCompare(b.postId));
  const total = overall[0];
  return {
    posts,
    open: posts.reduce((sum, post) => sum + post.open, 0),
    fixed: total?.fixed ?? 0,
    medianDaysToFix: days(total?.median_hours === null || total?.median_hours === undefined ? null : Number(total.median_hours)),
  };
}

/** The chart's table and CSV: one row per post; the median's cell is empty when nothing was fixed. */
export function bugReportsTable({ posts }: BugInsights): DataTable {
  return {
    columns: ["Post", "New", "Confirmed", "Open reports", "Fixed in range", "Median days to fix"],
    rows: posts.map((post) => [post.title, post.new, post.confirmed, post.open, post.fixed, post.medianDaysToFix ?? ""]),
  };
}
