// Who sees a post now (docs/security-model.md#who-sees-a-post): every place on the server that
// serves a post's data (the listing and the post page, both downloads, its cover under /media, its
// versions and the file check, the feed and the digests, my downloads and updates, shipped ideas
// and the vote's panels, known issues, bug reports and "me too", Discord roles, the account's own
// records) asks this module, never `enabled` or the publication time on its own. The rule itself
// is stated once, in app/utils/post-visibility.ts (the entitlement rule asks it there too); this
// module hands it on and adds it as a Prisma filter. Not seeing a post answers like a missing one
// (404), so a scheduled or disabled post reveals nothing, not even that it exists.
import type { Prisma } from "~/generated/prisma/client";
import { isEffectiveAdmin, isPostPublic, isPostVisible, type VisibilityViewer } from "~/utils/post-visibility";

export { isPostPublic, isPostVisible, type VisibilityViewer };

/** The posts shown to everyone at `now`, as a Prisma filter (the rule of `isPostPublic`). */
export function publicPostsWhere(now: Date): Prisma.PostWhereInput {
  return { enabled: true, OR: [{ publishAt: null }, { publishAt: { lte: now } }] };
}

/** The posts this viewer may see at `now`, as a Prisma filter (the rule of `isPostVisible`): every post for an admin. */
export function visiblePostsWhere(viewer: VisibilityViewer, now: Date = new Date()): Prisma.PostWhereInput {
  return isEffectiveAdmin(viewer) ? {} : publicPostsWhere(now);
}
