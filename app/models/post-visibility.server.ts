// Who sees a post now (docs/security-model.md#who-sees-a-post): every place that serves a post's
// data (the listing and the post page, both downloads, its cover under /media, its versions and
// the file check, the feed and the digests, my downloads and updates, shipped ideas, known issues and bug reports) asks this
// module, never `enabled` or the publication time on its own. A post is shown to everyone once it
// is enabled and published; effective admins (not restricted) see every post. Not seeing a post
// answers like a missing one (404), so a scheduled or disabled post reveals nothing, not even
// that it exists.
import type { Prisma, User } from "~/generated/prisma/client";
import { isEffectiveAdmin, isShownAt } from "~/utils/entitlement";

export type VisibilityViewer = Pick<User, "isAdmin" | "restricted"> | null | undefined;
export type VisibilityFacts = { enabled: boolean; publishAt: Date | null };

/** May this viewer (null for a guest) see this post at `now`? */
export function isPostVisible(post: VisibilityFacts, viewer: VisibilityViewer, now: Date = new Date()): boolean {
  return isEffectiveAdmin(viewer) || isShownAt(post, now);
}

/** Is the post shown to everyone at `now` (so its cover may be cached by anyone)? */
export function isPostPublic(post: VisibilityFacts, now: Date = new Date()): boolean {
  return isShownAt(post, now);
}

/** The posts shown to everyone at `now`, as a Prisma filter (the same rule as `isShownAt`). */
export function publicPostsWhere(now: Date): Prisma.PostWhereInput {
  return { enabled: true, OR: [{ publishAt: null }, { publishAt: { lte: now } }] };
}

/** The posts this viewer may see at `now`, as a Prisma filter: every post for an admin. */
export function visiblePostsWhere(viewer: VisibilityViewer, now: Date = new Date()): Prisma.PostWhereInput {
  return isEffectiveAdmin(viewer) ? {} : publicPostsWhere(now);
}
