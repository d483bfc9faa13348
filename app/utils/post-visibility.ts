// Who sees a post now (docs/security-model.md#who-sees-a-post), stated once: a post is shown to
// everyone once it is enabled and its scheduled publication (if any) has passed; effective admins
// (not restricted) see every post. Every place that serves a post's data asks `isPostVisible` (or
// `isPostPublic`, what a guest sees), the server's through app/models/post-visibility.server.ts,
// which adds the same rule as a Prisma filter; the entitlement rule (`explainAccess`) asks
// `postHiddenFrom` before anything else, so a post is never handed to a viewer who may not see it.
// Not seeing a post answers like a missing one, so a scheduled or disabled post reveals nothing,
// not even that it exists. Pure: the browser loads it too.

export type VisibilityViewer = { isAdmin: boolean; restricted: boolean } | null | undefined;
export type VisibilityFacts = { enabled: boolean; publishAt: Date | null };

/** Why a post is hidden from a viewer: it is disabled, or its scheduled publication is still ahead. */
export type PostHidden = { kind: "disabled" } | { kind: "scheduled"; publishAt: Date };

/**
 * The effective admin rule: an admin whose account is not restricted. A restricted admin keeps
 * the flag (so lifting the restriction restores it) but acts as nobody special meanwhile.
 */
export function isEffectiveAdmin<U extends { isAdmin: boolean; restricted: boolean }>(user: U | null | undefined): user is U {
  return Boolean(user?.isAdmin && !user.restricted);
}

/** Is the post past its scheduled publication (or never scheduled) at `now`? */
export function isPublishedAt(post: Pick<VisibilityFacts, "publishAt">, now: Date): boolean {
  return !post.publishAt || post.publishAt.getTime() <= now.getTime();
}

/** Why this viewer (null for a guest) may not see this post at `now`, or null when they may: the rule itself. */
export function postHiddenFrom(post: VisibilityFacts, viewer: VisibilityViewer, now: Date = new Date()): PostHidden | null {
  if (isEffectiveAdmin(viewer)) return null;
  if (!post.enabled) return { kind: "disabled" };
  if (post.publishAt && !isPublishedAt(post, now)) return { kind: "scheduled", publishAt: post.publishAt };
  return null;
}

/** May this viewer (null for a guest) see this post at `now`? */
export function isPostVisible(post: VisibilityFacts, viewer: VisibilityViewer, now: Date = new Date()): boolean {
  return postHiddenFrom(post, viewer, now) === null;
}

/** Is the post shown to everyone at `now`, as a guest sees it (so its cover may be cached by anyone)? */
export function isPostPublic(post: VisibilityFacts, now: Date = new Date()): boolean {
  return isPostVisible(post, null, now);
}
