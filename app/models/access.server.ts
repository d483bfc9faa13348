// Access explained (docs/product.md#access-explained): the entitlement decision of the download
// endpoints, with what its words need (purchase dates and shop emails, unverified linked shop
// emails, grant sources, tier titles). The decision itself is `explainAccess`, fed the same
// viewer context the downloads load, so a card or an admin's check cannot disagree with them.
import { db, queryRows } from "~/db.server";
import { isSafeKey } from "~/integrations/storage.server";
import { loadViewerContext, toEntitlementPost, toViewerContext, withAccess, type ViewerContext, type ViewerRow } from "~/models/entitlement.server";
import { DomainError } from "~/models/errors";
import { ACCESS_DETAIL_COLUMNS, getCurrentUserWith, type AccessDetailsRow } from "~/models/session.server";
import type { User } from "~/generated/prisma/client";
import { accessOf, LISTING_VIEWER, type LibraryListing, type LibraryPost } from "~/models/library-listing.server";
import { describeAccess, type AccessSummary } from "~/utils/access-words";
import { formatDay } from "~/utils/dates";
import { keptVersions } from "~/models/kept-versions.server";
import { postIdByRef } from "~/models/post-ref.server";
import { describeCardAccess, describeLadder, type CardAccess } from "~/utils/card-status";
import { explainAccess, isEffectiveAdmin, type AccessPurchase, type EntitlementViewer, type ViewerAccessDetails } from "~/utils/entitlement";

type PurchaseJson = { code: string; email: string; purchasedAt: string };

// One round trip (pooler-safe): the viewer context the downloads read (prisma/functions/viewer_context.sql) beside
// every detail the words may need (prisma/functions/viewer_access_details.sql, for the admins' check too), both planned
// once per database connection.
const DETAILS_SQL = `SELECT v.unlocked, v.purchases, v.pledges, v.downloads, v.stamp, v.voted, ${ACCESS_DETAIL_COLUMNS}
  FROM viewer_context($1, false, false) v CROSS JOIN viewer_access_details($1, true) d`;

function parsePurchases(text: string | null): AccessPurchase[] {
  if (!text) return [];
  return (JSON.parse(text) as PurchaseJson[]).map((row) => ({ code: row.code, email: row.email, purchasedAt: new Date(row.purchasedAt) }));
}

function toDetails(row: AccessDetailsRow | undefined): ViewerAccessDetails {
  return {
    purchases: parsePurchases(row?.purchaseDetails ?? null),
    unverifiedPurchases: parsePurchases(row?.unverifiedPurchases ?? null),
    grantSources: new Map(Object.entries(row?.grantSources ? (JSON.parse(row.grantSources) as Record<string, "ADMIN" | "SYNC">) : {})),
    tierTitles: new Map(Object.entries(row?.tierTitles ? (JSON.parse(row.tierTitles) as Record<string, string>) : {})),
  };
}

type AccessUser = { id: string; isAdmin: boolean; restricted: boolean; currentTierId: string | null };

/**
 * The viewer exactly as the download endpoints load it (same database function, same parsing),
 * plus the details the words need; one round trip.
 */
export async function loadExplainedViewer(user: AccessUser | null): Promise<EntitlementViewer | null> {
  if (!user) return null;
  return (await loadExplained(user)).explained;
}

// The same two functions for many users in one round trip (the Discord role planner's accounts).
const DETAILS_OF_MANY_SQL = `SELECT u.id AS "viewerId", v.unlocked, v.purchases, v.pledges, v.downloads, v.stamp, v.voted, ${ACCESS_DETAIL_COLUMNS}
  FROM unnest($1::text[]) AS u(id)
  CROSS JOIN LATERAL viewer_context(u.id, false, false) v
  CROSS JOIN LATERAL viewer_access_details(u.id, true) d`;

/** `loadExplainedViewer` for many users at once, by user id: one query, not one per user. */
export async function loadExplainedViewers(users: readonly AccessUser[]): Promise<Map<string, EntitlementViewer | null>> {
  const result = new Map<string, EntitlementViewer | null>();
  if (users.length === 0) return result;
  const rows = await queryRows<ViewerRow & AccessDetailsRow & { viewerId: string }>(DETAILS_OF_MANY_SQL, [users.map((user) => user.id)]);
  const rowOf = new Map(rows.map((row) => [row.viewerId, row]));
  for (const user of users) result.set(user.id, explainedViewer(user, rowOf.get(user.id), false).explained);
  return result;
}

async function loadExplained(user: AccessUser): Promise<{ context: ViewerContext; explained: EntitlementViewer | null }> {
  const [row] = await queryRows<ViewerRow & AccessDetailsRow>(DETAILS_SQL, [user.id]);
  return explainedViewer(user, row, false);
}

function explainedViewer(
  user: AccessUser,
  row: (ViewerRow & AccessDetailsRow) | undefined,
  withDownloads: boolean,
): { context: ViewerContext; explained: EntitlementViewer | null } {
  const context = toViewerContext(user, row, withDownloads);
  const viewer = context.viewer;
  return { context, explained: viewer ? { ...viewer, details: toDetails(row) } : null };
}

/**
 * The library page's viewer, read with the request's user in one round trip (which the root
 * loader's ask for the user joins, see `getCurrentUserWith`): the context its listing reads
 * (downloads and the library stamp, as `LISTING_VIEWER` asks) and the explained viewer its cards'
 * words need. Its details leave out what cards never use: unverified purchases (a user never
 * sees them) and tier titles (`describeLibraryCards` takes them from the listing's tiers). A
 * guest's context is the library stamp.
 */
export async function loadLibraryPageViewer(request: Request): Promise<{ user: User | null; context: ViewerContext; explained: EntitlementViewer | null }> {
  const found = await getCurrentUserWith<ViewerRow & AccessDetailsRow>(request, { ...LISTING_VIEWER, withAccessDetails: true });
  if (!found) return { user: null, context: await loadViewerContext(null, LISTING_VIEWER), explained: null };
  return { user: found.user, ...explainedViewer(found.user, found.extra, LISTING_VIEWER.withDownloads) };
}

/**
 * Each shown card's explanation, by post id, in the card's words (its short status, near misses
 * without item codes): the listing's own explanation of each post (asked once per post by
 * `listLibraryPosts`, for its viewer at its instant). Tier titles come from the listing's own
 * tiers. `posts`: posts of `listing`.
 */
export function describeLibraryCards(
  listing: LibraryListing,
  posts: readonly LibraryPost[],
  tiers: readonly { tierId: string; title: string; subscribeLabel?: string | null }[],
): Record<string, CardAccess> {
  const { viewer, now } = listing;
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const result: Record<string, CardAccess> = {};
  const offered = tiers.map((tier) => ({ tierId: tier.tierId, title: tier.title, subscribeLabel: tier.subscribeLabel ?? null }));
  // A restricted viewer is promised nothing, so no step is theirs.
  const viewerTierId = viewer && !viewer.restricted ? viewer.currentTierId : null;
  for (const post of posts) {
    const { explanation } = accessOf(listing, post);
    result[post.postId] = { ...describeCardAccess(explanation, titles, now), ...describeLadder(post, offered, viewerTierId, explanation, now) };
  }
  return result;
}

export type AccessCheck = {
  user: { id: string; number: number; label: string };
  post: { id: string; title: string };
  access: AccessSummary;
  /** What the download endpoints answer: the entitlement plus their own two conditions. */
  downloadable: boolean;
  /** The answer in a few words: the terms alone standing in the way is a yes for later. */
  verdict: "Can download" | "Can download after accepting the terms" | "Cannot download";
  /** The endpoints' other refusals (terms, missing file), in words. */
  blockers: string[];
  /** Versions a locked post's user keeps from their membership (docs/product.md#keep-what-you-downloaded). */
  kept: string[];
};

export const ACCESS_CHECK_MESSAGES = {
  userNotFound: "User not found.",
  postNotFound: "Post not found.",
  failed: "Could not check access.",
} as const;

/**
 * An admin's "Check access": would this user's download of this post succeed, and why (not)?
 * Loads the viewer as `authorizeDownload` does and asks the same function; the endpoints' two
 * further conditions (terms accepted, a stored file) are reported as blockers.
 */
export async function checkAccess(userId: string, postRef: string): Promise<AccessCheck> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { id: true, number: true, email: true, fullName: true, isAdmin: true, restricted: true, currentTierId: true, tosAccepted: true },
  });
  if (!user) throw new DomainError(404, ACCESS_CHECK_MESSAGES.userNotFound);
  const postId = await postIdByRef(postRef);
  const post = postId ? await db.post.findUnique({ where: { id: postId }, include: withAccess }) : null;
  if (!post) throw new DomainError(404, ACCESS_CHECK_MESSAGES.postNotFound, { fields: { post: ACCESS_CHECK_MESSAGES.postNotFound } });
  const viewer = await loadExplainedViewer(user);
  const explanation = explainAccess(toEntitlementPost(post), viewer);
  const access = describeAccess(explanation, viewer?.details?.tierTitles ?? new Map());
  const blockers: string[] = [];
  const termsPending = explanation.allowed && !user.tosAccepted && !isEffectiveAdmin(user);
  if (termsPending) blockers.push("has not accepted the terms of service yet");
  if (explanation.allowed && (!post.driveFileId || !isSafeKey(post.driveFileId))) blockers.push("the post has no file to download");
  const downloadable = explanation.allowed && blockers.length === 0;
  const kept = explanation.allowed ? [] : ((await keptVersions(user.id, [post.id])).get(post.id) ?? []);
  return {
    user: { id: user.id, number: user.number, label: user.fullName ?? user.email ?? `#${user.number}` },
    post: { id: post.id, title: post.title },
    access,
    downloadable,
    verdict: downloadable ? "Can download" : termsPending && blockers.length === 1 ? "Can download after accepting the terms" : "Cannot download",
    blockers,
    kept: kept.map((version) => `Keeps ${version.label}, downloaded on ${formatDay(version.downloadedAt)} through a membership`),
  };
}
