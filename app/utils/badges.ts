// Card badges (docs/product.md#badges-and-download-status): New within 3 days of first publication; Updated within 3 days
// of the last update, unless the post is New. The server decides them (`newsOf`), so a page's data
// changes when a badge does, not with the clock (docs/decisions/027-pages-change-when-they-do.md).

export const BADGE_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;

export type Badges = { isNew: boolean; isUpdated: boolean };

/** The one news badge a card shows. */
export type News = "new" | "updated";

type Dated = { firstPublishedAt: Date | string | null | undefined; lastUpdated: Date | string | null | undefined };

function timeOf(date: Date | string | null | undefined): number | null {
  if (!date) return null;
  const time = new Date(date).getTime();
  return Number.isNaN(time) ? null : time;
}

function within(date: Date | string | null | undefined, now: Date): boolean {
  const time = timeOf(date);
  if (time === null) return false;
  const age = now.getTime() - time;
  return age >= 0 && age <= BADGE_WINDOW_MS;
}

export function badgesFor(post: Dated, now = new Date()): Badges {
  const isNew = within(post.firstPublishedAt, now);
  return { isNew, isUpdated: !isNew && within(post.lastUpdated, now) };
}

/** Each listed post's news badge at `now`, by post id (posts without one are left out). */
export function newsOf(posts: readonly { postId: string; first_published_at: string | null; last_updated: string | null }[], now: Date): Record<string, News> {
  const news: Record<string, News> = {};
  for (const post of posts) {
    const { isNew, isUpdated } = badgesFor({ firstPublishedAt: post.first_published_at, lastUpdated: post.last_updated }, now);
    if (isNew || isUpdated) news[post.postId] = isNew ? "new" : "updated";
  }
  return news;
}

/**
 * The first instant after `now` at which a badge of `post` appears or goes with no write: the
 * moment its first publication or last update comes into the window or leaves it (null: never).
 */
export function badgesTurnAt(post: Dated, now: number): number | null {
  let next: number | null = null;
  for (const date of [post.firstPublishedAt, post.lastUpdated]) {
    const time = timeOf(date);
    if (time === null) continue;
    // In the window from `time` to `time + BADGE_WINDOW_MS` inclusive.
    for (const edge of [time, time + BADGE_WINDOW_MS + 1]) if (edge > now && (next === null || edge < next)) next = edge;
  }
  return next;
}
