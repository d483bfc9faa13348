// Voter-linked releases (docs/product.md#releases): an admin links an inspiration item to the post
// that realizes it. Who had voted for it is copied then (a later reset of the likes keeps them);
// the library shows "Inspired by your vote" to them and "Inspired by 23 voters" to others, the
// vote page lists what shipped, and the voters' updates say "The idea you voted for is out". With
// `votersGetAccess` the voters also get the access of the post's first release, whatever their
// tier: the entitlement rule reads it from the viewer context (migrations 0043 and 0045).
import { db, queryRows } from "~/db.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { isPostVisible, type VisibilityViewer } from "~/models/post-visibility.server";
import { INSPIRATION_NOT_SHIPPED_MESSAGE, INSPIRATION_PANEL_NOT_FOUND_MESSAGE } from "~/models/inspiration.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { postIdByRef } from "~/models/post-ref.server";

export { INSPIRATION_NOT_SHIPPED_MESSAGE };

/** A shipped item as the vote page lists it. */
export type ShippedIdea = { panelId: string; title: string | null; postId: string; postTitle: string; voters: number; votersGetAccess: boolean };

/**
 * Links the item to the post (by id or exact title) and keeps who had voted for it; `null`
 * unlinks. `votersGetAccess` gives those voters the post's first release whatever their tier.
 */
export async function linkIdeaToPost(
  actorId: string,
  panelId: string,
  postRef: string | null,
  { votersGetAccess = false }: { votersGetAccess?: boolean } = {},
): Promise<ShippedIdea | null> {
  const postId = postRef === null ? null : await postIdByRef(postRef);
  const post = postId ? await db.post.findUnique({ where: { id: postId }, select: { id: true, title: true } }) : null;
  if (postRef !== null && !post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  return db.$transaction(async (tx) => {
    const before = await tx.inspirationPanel.findUnique({ where: { id: panelId }, select: { postId: true, title: true } });
    if (!before) throw new DomainError(404, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
    await tx.inspirationVoter.deleteMany({ where: { panelId } });
    let voters = 0;
    if (post) {
      voters = await tx.$executeRaw`
        INSERT INTO inspiration_voters (panel_id, user_id)
        SELECT DISTINCT panel_id, user_id FROM inspiration_likes WHERE panel_id = ${panelId}`;
    }
    const access = Boolean(post) && votersGetAccess;
    await tx.inspirationPanel.update({
      where: { id: panelId },
      // Linking ships the idea (it leaves the live round); unlinking reopens it.
      data: { postId: post?.id ?? null, shippedAt: post ? new Date() : null, votersGetAccess: access, status: post ? "SHIPPED" : "OPEN" },
    });
    await recordAudit(
      {
        actorId,
        action: post ? "inspiration.panel.ship" : "inspiration.panel.unship",
        targetType: "inspiration_panel",
        targetId: panelId,
        before: { postId: before.postId },
        after: { postId: post?.id ?? null, voters, votersGetAccess: access },
      },
      tx,
    );
    return post ? { panelId, title: before.title, postId: post.id, postTitle: post.title, voters, votersGetAccess: access } : null;
  });
}

/** Turns the voters' access to a shipped item's post on or off (the voters kept at the link stay). */
export async function setVoterAccess(actorId: string, panelId: string, votersGetAccess: boolean): Promise<void> {
  await db.$transaction(async (tx) => {
    const before = await tx.inspirationPanel.findUnique({ where: { id: panelId }, select: { postId: true, votersGetAccess: true } });
    if (!before) throw new DomainError(404, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
    if (!before.postId) throw new DomainError(409, INSPIRATION_NOT_SHIPPED_MESSAGE);
    await tx.inspirationPanel.update({ where: { id: panelId }, data: { votersGetAccess } });
    await recordAudit(
      {
        actorId,
        action: "inspiration.panel.voter_access",
        targetType: "inspiration_panel",
        targetId: panelId,
        before: { votersGetAccess: before.votersGetAccess },
        after: { votersGetAccess },
      },
      tx,
    );
  });
}

/** A shipped item as the database function `shipped_ideas` (prisma/functions/shipped_ideas.sql) answers it: with what the visibility rule reads about its post. */
export type StoredShippedIdea = ShippedIdea & { postEnabled: boolean; postPublishAtMs: number | null };

/** What the post-visibility rule reads about a shipped item's post. */
type ShippedPostFacts = Pick<StoredShippedIdea, "postEnabled" | "postPublishAtMs">;

/** May this viewer see the post that realizes the item at `now` (post-visibility.server.ts)? */
function seesPostOf(row: ShippedPostFacts, viewer: VisibilityViewer, now: Date): boolean {
  return isPostVisible({ enabled: row.postEnabled, publishAt: row.postPublishAtMs === null ? null : new Date(row.postPublishAtMs) }, viewer, now);
}

/** The shipped items whose post this viewer may see at `now`, in their order. */
export function shippedIdeasSeenBy(rows: readonly StoredShippedIdea[], viewer: VisibilityViewer, now: Date): ShippedIdea[] {
  return rows.flatMap(({ postEnabled, postPublishAtMs, ...idea }) => (seesPostOf({ postEnabled, postPublishAtMs }, viewer, now) ? [idea] : []));
}

/**
 * The items shipped as a post this viewer may not see at `now`: for them the idea is not there at
 * all (left out of the panels, a like answers 404), so nothing says that a post realizes it.
 */
export function ideasHiddenFrom(rows: readonly (ShippedPostFacts & { panelId: string })[], viewer: VisibilityViewer, now: Date): Set<string> {
  return new Set(rows.filter((row) => !seesPostOf(row, viewer, now)).map((row) => row.panelId));
}

/**
 * Items that shipped, newest first: for admins all of them, for everyone else those whose post
 * they can see (the database function `shipped_ideas`, which the vote page's single read uses too).
 */
export async function listShippedIdeas(viewer: VisibilityViewer, now = new Date()): Promise<ShippedIdea[]> {
  return shippedIdeasSeenBy(await queryRows<StoredShippedIdea>(`SELECT * FROM shipped_ideas()`, []), viewer, now);
}
