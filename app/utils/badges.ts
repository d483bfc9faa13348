// Card badges (docs/product.md#badges-and-download-status): New within 3 days of first publication; Updated within 3 days
// of the last update, unless the post is New.

export const BADGE_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;

export type Badges = { isNew: boolean; isUpdated: boolean };

function within(date: Date | string | null | undefined, now: Date): boolean {
  if (!date) return false;
  const time = new Date(date).getTime();
  if (Number.isNaN(time)) return false;
  const age = now.getTime() - time;
  return age >= 0 && age <= BADGE_WINDOW_MS;
}

export function badgesFor(
  post: { firstPublishedAt: Date | string | null | undefined; lastUpdated: Date | string | null | undefined },
  now = new Date(),
): Badges {
  const isNew = within(post.firstPublishedAt, now);
  return { isNew, isUpdated: !isNew && within(post.lastUpdated, now) };
}
