// Updates that reach the user (docs/decisions/012-update-feed-and-digests.md): what is
// new for an account (new posts it may download, new versions of posts), its private Atom feed
// behind a token, and the settings of the digest mails (opt-ins, one-click unsubscribe). The
// digest job itself is in update-digest.server.ts.
import { createHash, randomBytes } from "node:crypto";
import { db } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import { requireProvenEmailToAttach } from "~/models/account.server";
import { DomainError } from "~/models/errors";
import { loadViewerContext } from "~/models/entitlement.server";
import { accessOf, isListedPostPublic, LISTING_VIEWER, listLibraryPosts } from "~/models/library-listing.server";
import { listPatchNews } from "~/models/game-patch.server";
import { listFixNoticesFor, versionNotesLink } from "~/models/bug-report.server";
import { giveUpUpdateMails } from "~/models/mail-outbox.server";
import { patchNewsHeadline } from "~/utils/game-patch-schemas";
import { atomXml } from "~/utils/atom";
import { UPDATE_MESSAGES, updatePreferencesSchema, updateTokenSchema } from "~/utils/update-schemas";

export { UPDATE_MESSAGES };

/** Entries a feed holds at most, newest first. */
export const FEED_ENTRY_LIMIT = 50;

type LibraryUser = NonNullable<Parameters<typeof listLibraryPosts>[0]>;

export type UpdateKind = "NEW_POST" | "NEW_VERSION" | "PATCH_WORKS";

/** Something new for a user: a post they may download, a new version of one, or a version confirmed on a game patch. */
export type UpdateItem = {
  kind: UpdateKind;
  /** The post's id (NEW_POST), the version's id (NEW_VERSION) or "<versionId>:<patchId>" (PATCH_WORKS): what the ledger records. */
  subjectId: string;
  postId: string;
  title: string;
  /** The version's label (the post's current one for NEW_POST). */
  label: string;
  notes: string;
  at: Date;
  /** The user downloaded the post before (any version): they "own" it for the version mails. */
  owned: boolean;
  /** A NEW_POST that a release step opened to the user's tier (or to everyone) after its publication. */
  released: boolean;
  /** A NEW_POST realizing an inspiration item the user voted for (told even while it is locked for them). */
  voted: boolean;
  /** PATCH_WORKS: the patch, and whether an earlier version of the post was broken on it ("Fixed for …"). */
  patch?: { name: string; fixed: boolean };
};

/** How a game-patch confirmation is announced: "Confirmed for 1.113" or "Fixed for 1.113 in V2.2". */
export function patchItemHeadline(item: Pick<UpdateItem, "title" | "label" | "patch">): string {
  return `${item.title}: ${patchNewsHeadline({ patch: item.patch?.name ?? "", label: item.label, fixed: item.patch?.fixed ?? false })}`;
}

/** How a new post is announced: "Now available for your tier: …" when a release step opened it. */
export function newPostHeadline(item: Pick<UpdateItem, "title" | "released" | "voted">, prefix: string): string {
  if (item.voted) return `The idea you voted for is out: ${item.title}`;
  return item.released ? `Now available for your tier: ${item.title}` : `${prefix}${item.title}`;
}

/** The library page that shows the post (its search by title). */
export function postLink(title: string): string {
  return `${env().APP_URL}/library?search=${encodeURIComponent(title)}`;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * What is new for the user, newest first: every post they may download now (dated by its first
 * publication) and every version that followed a post's first one, unless hidden. "May download"
 * is the library's own `unlocked` (the entitlement rule) on posts shown to everyone, so the feed and the
 * mails never announce a post the library would refuse. `since` keeps only items after it.
 */
export async function listUpdatesFor(user: LibraryUser, { since, limit }: { since?: Date; limit: number }): Promise<UpdateItem[]> {
  // One read of the viewer for the listing, the votes and the release steps' words.
  const context = await loadViewerContext(user, LISTING_VIEWER);
  const listing = await listLibraryPosts(user, { context });
  const now = listing.now;
  const listed = listing.posts.filter((post) => isListedPostPublic(post, now));
  const voted = context.votedPostIds;
  const posts = listed.filter((post) => post.unlocked || voted.has(post.postId));
  if (posts.length === 0) return [];
  // New versions only of posts the user may download.
  const byId = new Map(posts.filter((post) => post.unlocked).map((post) => [post.postId, post]));
  const after = since ?? new Date(0);
  const owned = (post: (typeof posts)[number]) => post.downloadStatus !== undefined && post.downloadStatus !== "never";
  const items: UpdateItem[] = [];
  for (const post of posts) {
    const published = new Date(post.first_published_at ?? post.published_at ?? post.order_date);
    if (!post.unlocked) {
      // A voter without access hears that the idea is out once the post's first step opens.
      const first = post.release_steps.reduce((at, step) => Math.min(at, new Date(step.opens_at).getTime()), Number.POSITIVE_INFINITY);
      const at = new Date(Math.max(published.getTime(), Number.isFinite(first) ? first : published.getTime()));
      if (at.getTime() <= after.getTime() || at.getTime() > now.getTime()) continue;
      items.push({
        kind: "NEW_POST",
        subjectId: post.postId,
        postId: post.postId,
        title: post.title,
        label: post.version,
        notes: "",
        at,
        owned: false,
        released: false,
        voted: true,
      });
      continue;
    }
    // A post a release step opened to this user is new for them from that step on
    // (docs/product.md#releases); the ledger of the mails keeps it to one announcement.
    // The listing's explanation of the post: the grant its card names.
    const grant = accessOf(listing, post).explanation.grant;
    const released = grant?.reason === "release" && grant.opensAt.getTime() > published.getTime();
    const at = released ? grant.opensAt : published;
    if (at.getTime() <= after.getTime()) continue;
    items.push({
      kind: "NEW_POST",
      subjectId: post.postId,
      postId: post.postId,
      title: post.title,
      label: post.version,
      notes: "",
      at,
      owned: owned(post),
      released,
      voted: voted.has(post.postId),
    });
  }
  // A version is new when an earlier one of the same post exists (the first came with the post).
  const versions = await db.$queryRaw<{ id: string; post_id: string; label: string; notes: string; created_at: Date }[]>`
    SELECT v.id, v.post_id, v.label, v.notes, v.created_at
      FROM post_versions v
     WHERE v.post_id = ANY(${[...byId.keys()]}::text[]) AND NOT v.hidden AND v.created_at > ${after}
       AND EXISTS (SELECT 1 FROM post_versions f WHERE f.post_id = v.post_id AND (f.created_at, f.id) < (v.created_at, v.id))
     ORDER BY v.created_at DESC, v.id DESC
     LIMIT ${limit}`;
  for (const version of versions) {
    const post = byId.get(version.post_id)!;
    items.push({
      kind: "NEW_VERSION",
      subjectId: version.id,
      postId: post.postId,
      title: post.title,
      label: version.label,
      notes: version.notes,
      at: version.created_at,
      owned: owned(post),
      released: false,
      voted: false,
    });
  }
  // Versions marked "works" on a game patch (docs/product.md#game-patches), of posts the user may download.
  for (const news of await listPatchNews([...byId.keys()], after, limit)) {
    const post = byId.get(news.postId)!;
    items.push({
      kind: "PATCH_WORKS",
      subjectId: news.subjectId,
      postId: post.postId,
      title: post.title,
      label: news.label,
      notes: "",
      at: news.at,
      owned: owned(post),
      released: false,
      voted: false,
      patch: { name: news.patch, fixed: news.fixed },
    });
  }
  items.sort((a, b) => b.at.getTime() - a.at.getTime() || a.subjectId.localeCompare(b.subjectId));
  return items.slice(0, limit);
}

/** A locked post whose next release step reaches the user's tier: "Coming to your tier". */
export type ComingItem = { postId: string; title: string; opensAt: string };

/** The posts a later release step will open to the user's tier, soonest first. */
export async function listComingFor(user: LibraryUser): Promise<ComingItem[]> {
  const listing = await listLibraryPosts(user);
  const locked = listing.posts.filter((post) => !post.unlocked && post.release_steps.length > 0);
  if (locked.length === 0) return [];
  const coming: ComingItem[] = [];
  for (const post of locked) {
    const upcoming = accessOf(listing, post).explanation.upcoming;
    // Only what opens to their tier: a post that becomes free for everyone is not "for your tier".
    if (upcoming?.tierId) coming.push({ postId: post.postId, title: post.title, opensAt: upcoming.opensAt.toISOString() });
  }
  return coming.sort((a, b) => a.opensAt.localeCompare(b.opensAt));
}

// ---------------------------------------------------------------- settings

export type UpdateSettings = {
  hasFeed: boolean;
  feedCreatedAt: string | null;
  newVersions: boolean;
  newPosts: boolean;
  /** A mail at once when a release step opens a post to the user. */
  releases: boolean;
  unsubscribedAt: string | null;
};

export async function getUpdateSettings(userId: string): Promise<UpdateSettings> {
  const row = await db.updateSubscription.findUnique({ where: { userId } });
  return {
    hasFeed: Boolean(row?.feedTokenHash),
    feedCreatedAt: row?.feedTokenCreatedAt?.toISOString() ?? null,
    newVersions: row?.notifyNewVersions ?? false,
    newPosts: row?.notifyNewPosts ?? false,
    releases: row?.notifyReleases ?? false,
    unsubscribedAt: row?.unsubscribedAt?.toISOString() ?? null,
  };
}

/** The account's row, made on first use with its unsubscribe token. */
async function ensureSubscription(userId: string) {
  return db.updateSubscription.upsert({ where: { userId }, create: { userId, unsubscribeToken: newToken() }, update: {} });
}

/**
 * A new private feed address; the previous one answers 404 from now on. Only a hash of the token
 * is stored, so the address is returned here once and never shown again. Refused while the
 * account's email is unproven (the address lets its holder read the account's updates).
 */
export async function regenerateFeedToken(userId: string): Promise<{ url: string }> {
  await requireProvenEmailToAttach(userId);
  const token = newToken();
  await ensureSubscription(userId);
  await db.updateSubscription.update({ where: { userId }, data: { feedTokenHash: hashToken(token), feedTokenCreatedAt: new Date() } });
  return { url: feedUrl(token) };
}

export function feedUrl(token: string): string {
  return `${env().APP_URL}/feeds/${token}.atom`;
}

/** Saves the two opt-ins; switching one on starts its digests from now (nothing older is mailed). */
export async function saveUpdatePreferences(userId: string, input: unknown): Promise<UpdateSettings> {
  const parsed = updatePreferencesSchema.safeParse(input);
  if (!parsed.success) throw new DomainError(400, UPDATE_MESSAGES.saveFailed);
  const { newVersions, newPosts, releases } = parsed.data;
  const row = await ensureSubscription(userId);
  const now = new Date();
  await db.updateSubscription.update({
    where: { userId },
    data: {
      notifyNewVersions: newVersions,
      notifyNewPosts: newPosts,
      newVersionsSince: newVersions ? (row.notifyNewVersions ? row.newVersionsSince : now) : null,
      newPostsSince: newPosts ? (row.notifyNewPosts ? row.newPostsSince : now) : null,
      notifyReleases: releases,
      releasesSince: releases ? (row.notifyReleases ? row.releasesSince : now) : null,
    },
  });
  return getUpdateSettings(userId);
}

// ---------------------------------------------------------------- the feed

/**
 * The Atom document of a feed token, or null for an unknown, replaced or malformed token (the
 * route answers 404 alike). Needs no session: the token is the credential. A restricted account's
 * feed is empty, as its library unlocks nothing.
 */
export async function feedForToken(token: string): Promise<string | null> {
  if (!updateTokenSchema.safeParse(token).success) return null;
  const row = await db.updateSubscription.findUnique({ where: { feedTokenHash: hashToken(token) }, include: { user: true } });
  if (!row) return null;
  return buildFeed(row.user, token);
}

async function buildFeed(user: User, token: string): Promise<string> {
  const appUrl = env().APP_URL;
  const host = new URL(appUrl).hostname;
  const [items, fixes] = await Promise.all([listUpdatesFor(user, { limit: FEED_ENTRY_LIMIT }), listFixNoticesFor(user, FEED_ENTRY_LIMIT)]);
  const updates = items.map((item) =>
    item.kind === "PATCH_WORKS"
      ? {
          id: `tag:${host},2026:patch/${item.subjectId}`,
          title: patchItemHeadline(item),
          updated: item.at,
          link: postLink(item.title),
          content: `${item.title} ${item.label} works on game patch ${item.patch?.name ?? ""}.`,
        }
      : {
          id: item.kind === "NEW_POST" ? `tag:${host},2026:post/${item.postId}` : `tag:${host},2026:version/${item.subjectId}`,
          title: item.kind === "NEW_POST" ? newPostHeadline(item, "New post: ") : `${item.title} ${item.label}`,
          updated: item.at,
          link: postLink(item.title),
          content:
            item.kind === "NEW_POST" ? `${item.title} (${item.label}) is in the library.` : item.notes || `${item.title} has a new version, ${item.label}.`,
        },
  );
  // A bug the account reported (or said "me too" to) fixed in a version: one entry per report, linking that version's notes.
  const fixed = fixes.map((fix) => ({
    id: `tag:${host},2026:bug-fixed/${fix.reportId}`,
    title: `Fixed in ${fix.postTitle} ${fix.label}: ${fix.title}`,
    updated: fix.at,
    link: versionNotesLink(fix.postId, fix.versionId),
    content: `The bug \u201c${fix.title}\u201d you reported or said \u201cme too\u201d to is fixed in ${fix.postTitle} ${fix.label}.${fix.notes.trim() ? `\n\n${fix.notes}` : ""}`,
  }));
  // A stable sort by date only: the updates keep their own order among themselves.
  const entries = [...updates, ...fixed].sort((a, b) => b.updated.getTime() - a.updated.getTime()).slice(0, FEED_ENTRY_LIMIT);
  return atomXml({
    id: `tag:${host},2026:updates/${user.id}`,
    title: "Creator Library: your updates",
    selfUrl: feedUrl(token),
    alternateUrl: `${appUrl}/library`,
    updated: entries[0]?.updated ?? user.createdAt,
    entries,
  });
}

// ---------------------------------------------------------------- one-click unsubscribe

/** What the unsubscribe page says before the button is pressed (GET changes nothing). */
export async function unsubscribeState(token: string): Promise<"subscribed" | "unsubscribed" | "unknown"> {
  if (!updateTokenSchema.safeParse(token).success) return "unknown";
  const row = await db.updateSubscription.findUnique({ where: { unsubscribeToken: token } });
  if (!row) return "unknown";
  return row.notifyNewVersions || row.notifyNewPosts || row.notifyReleases ? "subscribed" : "unsubscribed";
}

/**
 * RFC 8058 one-click unsubscribe: the token alone (no session) switches every opt-in off and
 * records when. Repeating it changes nothing more.
 */
export async function unsubscribeByToken(token: string): Promise<{ message: string }> {
  if (!updateTokenSchema.safeParse(token).success) throw new DomainError(404, UPDATE_MESSAGES.unknownLink);
  const row = await db.updateSubscription.findUnique({ where: { unsubscribeToken: token } });
  if (!row) throw new DomainError(404, UPDATE_MESSAGES.unknownLink);
  if (!row.notifyNewVersions && !row.notifyNewPosts && !row.notifyReleases) return { message: UPDATE_MESSAGES.alreadyUnsubscribed };
  // Update mails still queued for the account (the mail server was down) are not sent after it.
  await db.$transaction(async (tx) => {
    await tx.updateSubscription.update({
      where: { userId: row.userId },
      data: {
        notifyNewVersions: false,
        notifyNewPosts: false,
        notifyReleases: false,
        newVersionsSince: null,
        newPostsSince: null,
        releasesSince: null,
        unsubscribedAt: new Date(),
      },
    });
    await giveUpUpdateMails(tx, row.userId, "The recipient unsubscribed.");
  });
  return { message: UPDATE_MESSAGES.unsubscribed };
}
