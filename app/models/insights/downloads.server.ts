// Download insights: downloads per UTC day by access source with unique users, and the most
// downloaded posts with their daily downloads and version adoption. Guests' free downloads
// (guest_downloads) count as Free and in the rankings; unique users and owners are accounts. Rolled-up days come from the
// rollup tables, later days from the raw rows (see rollup.server.ts).
import { queryRows } from "~/db.server";
import type { DownloadAccess } from "~/generated/prisma/enums";
import { rolledThrough, splitDay } from "~/models/insights/rollup.server";
import { daysOf, type DataTable, type InsightsRange } from "~/utils/insights-schemas";

/** Stacking order, and the words the admin reads for each source. */
export const ACCESS_SOURCES: { key: DownloadAccess; label: string }[] = [
  { key: "FREE", label: "Free" },
  { key: "TIER", label: "Tier" },
  { key: "EARLY_SUPPORTER", label: "Early supporter" },
  { key: "PURCHASE", label: "Purchase" },
  { key: "GRANT", label: "Grant" },
  { key: "ADMIN", label: "Admin" },
  { key: "UNKNOWN", label: "Unknown (before sources were recorded)" },
];

export type DownloadDay = { day: string; bySource: Record<DownloadAccess, number>; total: number; uniqueUsers: number };

const emptySources = (): Record<DownloadAccess, number> => Object.fromEntries(ACCESS_SOURCES.map(({ key }) => [key, 0])) as Record<DownloadAccess, number>;

export async function downloadsPerDay(range: InsightsRange): Promise<DownloadDay[]> {
  const split = splitDay(range, await rolledThrough());
  const [sources, users] = await Promise.all([
    queryRows<{ day: string; source: DownloadAccess; downloads: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, access_source AS source, downloads FROM download_day_sources
        WHERE day >= $1::date AND day < $2::date
       UNION ALL
       SELECT to_char(created_at::date, 'YYYY-MM-DD'), access_source, count(*)::int FROM downloads
        WHERE created_at >= $2::date AND created_at < $3::date GROUP BY 1, 2
       UNION ALL
       SELECT to_char(created_at::date, 'YYYY-MM-DD'), 'FREE', count(*)::int FROM guest_downloads
        WHERE created_at >= $2::date AND created_at < $3::date GROUP BY 1`,
      [range.from, split, range.to],
    ),
    queryRows<{ day: string; users: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, unique_users AS users FROM download_days
        WHERE day >= $1::date AND day < $2::date
       UNION ALL
       SELECT to_char(created_at::date, 'YYYY-MM-DD'), count(DISTINCT user_id)::int FROM downloads
        WHERE created_at >= $2::date AND created_at < $3::date GROUP BY 1`,
      [range.from, split, range.to],
    ),
  ]);
  const byDay = new Map(daysOf(range).map((day) => [day, { day, bySource: emptySources(), total: 0, uniqueUsers: 0 }]));
  for (const row of sources) {
    const entry = byDay.get(row.day);
    if (!entry) continue;
    entry.bySource[row.source] += row.downloads;
    entry.total += row.downloads;
  }
  for (const row of users) {
    const entry = byDay.get(row.day);
    if (entry) entry.uniqueUsers = row.users;
  }
  return [...byDay.values()];
}

export function downloadsTable(days: DownloadDay[]): DataTable {
  return {
    columns: ["Day (UTC)", ...ACCESS_SOURCES.map((source) => source.label), "Total downloads", "Unique users"],
    rows: days.map((day) => [day.day, ...ACCESS_SOURCES.map(({ key }) => day.bySource[key]), day.total, day.uniqueUsers]),
  };
}

// ---------------------------------------------------------------- top posts

export const TOP_POSTS = 10;

export type TopPost = {
  rank: number;
  postId: string;
  title: string;
  version: string;
  downloads: number;
  /** Downloads per day of the range, in day order. */
  perDay: number[];
  /** Accounts that ever downloaded the post, and those of them who downloaded its current version. */
  owners: number;
  ownersOnCurrentVersion: number;
};

export async function topPosts(range: InsightsRange, limit = TOP_POSTS): Promise<{ days: string[]; posts: TopPost[] }> {
  const rolled = await rolledThrough();
  const split = splitDay(range, rolled);
  // Rolled days [from, split): the post's running total at the last rolled day before `split`
  // less the one before `from` (two lookups per post on (post_id, day)); raw days after.
  const ranked = await queryRows<{ post_id: string; title: string; version: string; downloads: number }>(
    `WITH rolled AS (
       SELECT p.id AS post_id,
              coalesce((SELECT d.running_total FROM download_post_days d WHERE d.post_id = p.id AND d.day < $2::date ORDER BY d.day DESC LIMIT 1), 0)
              - coalesce((SELECT d.running_total FROM download_post_days d WHERE d.post_id = p.id AND d.day < $1::date ORDER BY d.day DESC LIMIT 1), 0) AS downloads
         FROM posts p WHERE $1::date < $2::date
     ), counts AS (
       SELECT post_id, sum(downloads)::int AS downloads FROM (
         SELECT post_id, downloads FROM rolled
         UNION ALL
         SELECT post_id, count(*)::int FROM downloads WHERE created_at >= $2::date AND created_at < $3::date GROUP BY post_id
         UNION ALL
         SELECT post_id, count(*)::int FROM guest_downloads WHERE created_at >= $2::date AND created_at < $3::date GROUP BY post_id
       ) parts GROUP BY post_id
     )
     SELECT c.post_id, p.title, p.version, c.downloads FROM counts c JOIN posts p ON p.id = c.post_id
      WHERE c.downloads > 0
      ORDER BY c.downloads DESC, p.title, c.post_id LIMIT $4`,
    [range.from, split, range.to, limit],
  );
  const ids = ranked.map((row) => row.post_id);
  if (ids.length === 0) return { days: daysOf(range), posts: [] };
  const [daily, adoption] = await Promise.all([
    queryRows<{ post_id: string; day: string; downloads: number }>(
      `SELECT post_id, to_char(day, 'YYYY-MM-DD') AS day, downloads FROM download_post_days
        WHERE post_id = ANY($4::text[]) AND day >= $1::date AND day < $2::date
       UNION ALL
       SELECT post_id, to_char(created_at::date, 'YYYY-MM-DD'), count(*)::int FROM downloads
        WHERE post_id = ANY($4::text[]) AND created_at >= $2::date AND created_at < $3::date GROUP BY 1, 2
       UNION ALL
       SELECT post_id, to_char(created_at::date, 'YYYY-MM-DD'), count(*)::int FROM guest_downloads
        WHERE post_id = ANY($4::text[]) AND created_at >= $2::date AND created_at < $3::date GROUP BY 1, 2`,
      [range.from, split, range.to, ids],
    ),
    // All time, not the range: adoption asks who of everyone holding the post has the latest.
    // Owners rolled up before the cut, plus accounts whose first download came after it: the
    // rows since the cut (the created_at index, a day's worth), each checked for an earlier one.
    queryRows<{ post_id: string; owners: number; current: number }>(
      `WITH tail AS (
         SELECT d.post_id, d.user_id, d.version = p.version AS current,
                NOT EXISTS (SELECT 1 FROM downloads e WHERE e.user_id = d.user_id AND e.post_id = d.post_id AND e.created_at < $2::date) AS new_owner,
                NOT EXISTS (SELECT 1 FROM downloads e WHERE e.user_id = d.user_id AND e.post_id = d.post_id AND e.version = d.version AND e.created_at < $2::date) AS new_user
           FROM downloads d JOIN posts p ON p.id = d.post_id
          WHERE d.post_id = ANY($1::text[]) AND d.created_at >= $2::date
       ), fresh AS (
         SELECT post_id, count(DISTINCT user_id) FILTER (WHERE new_owner) AS owners, count(DISTINCT user_id) FILTER (WHERE current AND new_user) AS current
           FROM tail GROUP BY post_id
       )
       SELECT p.id AS post_id,
              ((CASE WHEN $3 THEN coalesce((SELECT o.owners FROM download_post_owners o WHERE o.post_id = p.id), 0) ELSE 0 END) + coalesce(f.owners, 0))::int AS owners,
              ((CASE WHEN $3 THEN coalesce((SELECT v.users FROM download_post_versions v WHERE v.post_id = p.id AND v.version = p.version), 0) ELSE 0 END) + coalesce(f.current, 0))::int AS current
         FROM posts p LEFT JOIN fresh f ON f.post_id = p.id WHERE p.id = ANY($1::text[])`,
      [ids, rolled ?? "-infinity", rolled !== null],
    ),
  ]);
  const days = daysOf(range);
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const posts = ranked.map((row, index): TopPost => {
    const owned = adoption.find((entry) => entry.post_id === row.post_id);
    return {
      rank: index + 1,
      postId: row.post_id,
      title: row.title,
      version: row.version,
      downloads: row.downloads,
      perDay: days.map(() => 0),
      owners: owned?.owners ?? 0,
      ownersOnCurrentVersion: owned?.current ?? 0,
    };
  });
  const byId = new Map(posts.map((post) => [post.postId, post]));
  for (const row of daily) {
    const post = byId.get(row.post_id);
    const index = dayIndex.get(row.day);
    if (post && index !== undefined) post.perDay[index]! += row.downloads;
  }
  return { days, posts };
}

export function topPostsTable({ posts }: { posts: TopPost[] }): DataTable {
  return {
    columns: ["Rank", "Post", "Post id", "Downloads", "Current version", "Owners", "Owners with the current version"],
    rows: posts.map((post) => [post.rank, post.title, post.postId, post.downloads, post.version, post.owners, post.ownersOnCurrentVersion]),
  };
}

/** The top posts' downloads per day, one row per day and post (long form, for spreadsheets). */
export function postDownloadsTable({ days, posts }: { days: string[]; posts: TopPost[] }): DataTable {
  return {
    columns: ["Day (UTC)", "Post", "Post id", "Downloads"],
    rows: days.flatMap((day, index) => posts.map((post) => [day, post.title, post.postId, post.perDay[index]!])),
  };
}

/** The same numbers with one column per post, as the page's table shows them. */
export function postDownloadsWideTable({ days, posts }: { days: string[]; posts: TopPost[] }): DataTable {
  return {
    columns: ["Day (UTC)", ...posts.map((post) => post.title)],
    rows: days.map((day, index) => [day, ...posts.map((post) => post.perDay[index]!)]),
  };
}
