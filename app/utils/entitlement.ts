// The entitlement rule (docs/product.md#entitlement): one pure function decides whether a viewer
// may download a post. The listing's `unlocked` flag and both download endpoints ask it.

export type EntitlementPost = {
  id: string;
  enabled: boolean;
  paidContent: boolean;
  isKofiOnly: boolean;
  kofiId: string | null;
  /** Tier ids that unlock the post now. */
  currentTierIds: readonly string[];
  /** Tier ids the post was first published for (early supporters keep it). */
  firstTierIds: readonly string[];
  firstPublishedAt: Date | null;
};

export type PledgeRecord = {
  type: string;
  date: Date;
  tierId: string | null;
  paymentStatus: string | null;
};

/** Everything about a logged-in user the rule needs; loaded once per request, not per post. */
export type EntitlementViewer = {
  isAdmin: boolean;
  restricted: boolean;
  currentTierId: string | null;
  /** The user's unlocked_content (admin grants and sync-job unlocks). */
  unlockedPostIds: ReadonlySet<string>;
  /** Shop item codes bought with one of the user's VERIFIED shop emails. */
  purchasedKofiCodes: ReadonlySet<string>;
  /** Support-platform pledge history, any order. */
  pledges: readonly PledgeRecord[];
  /** What the explanation names (dates, emails, grant sources); never consulted by the decision. */
  details?: ViewerAccessDetails;
};

/** One shop purchase as the explanation names it. */
export type AccessPurchase = { code: string; email: string; purchasedAt: Date };

export type ViewerAccessDetails = {
  /** Purchases made with one of the user's verified shop emails (the source of `purchasedKofiCodes`). */
  purchases: readonly AccessPurchase[];
  /** Purchases made with a shop email the user linked but has not verified: they unlock nothing. */
  unverifiedPurchases: readonly AccessPurchase[];
  /** Who granted each `unlockedPostIds` entry. */
  grantSources: ReadonlyMap<string, "ADMIN" | "SYNC">;
  /** Tier titles by id, for the words. */
  tierTitles: ReadonlyMap<string, string>;
};

/** How a post is unlocked for a viewer; null when it is locked. */
export type UnlockReason = "free" | "admin" | "unlocked-content" | "current-tier" | "first-tier" | "purchase";

/** Why a post is unlocked, with what the words need. */
export type AccessGrant =
  | { reason: "free" }
  | { reason: "admin" }
  | { reason: "unlocked-content"; source: "ADMIN" | "SYNC" | null; pledgedTierId: string | null; publishedAt: Date | null }
  | { reason: "current-tier"; tierId: string }
  | { reason: "first-tier"; tierId: string; publishedAt: Date }
  | { reason: "purchase"; code: string; purchase: AccessPurchase | null };

/** A rule that did not unlock the post, and how close it came. */
export type AccessMiss =
  | { kind: "restricted" }
  | { kind: "disabled" }
  | { kind: "guest" }
  | { kind: "shop-only"; currentTierId: string | null }
  | { kind: "tier"; currentTierId: string | null; needs: readonly string[] }
  | { kind: "first-tier"; pledge: PledgeRecord | null; publishedAt: Date; needs: readonly string[] }
  | { kind: "unverified-purchase"; purchase: AccessPurchase }
  | { kind: "not-bought"; code: string };

export type AccessExplanation = {
  /** The decision: `canDownload` is exactly this. */
  allowed: boolean;
  grant: AccessGrant | null;
  /** The rules that were tried and failed, in the rule's order (empty when nothing was close). */
  misses: AccessMiss[];
  /** What would unlock a locked post: a membership of one of these tiers, or this shop item. */
  unlocks: { tierIds: readonly string[]; shopItem: string | null };
};

function isActivePledge(event: PledgeRecord): boolean {
  if (event.type === "pledge_delete") return false;
  const status = event.paymentStatus?.toLowerCase();
  return status === undefined || status === "paid";
}

/** The pledge-history event that decides the user's state on `date` (the latest at or before it). */
export function pledgeAt(pledges: readonly PledgeRecord[], date: Date): PledgeRecord | null {
  let latest: PledgeRecord | null = null;
  for (const event of pledges) {
    if (event.date.getTime() > date.getTime()) continue;
    if (!latest || event.date.getTime() >= latest.date.getTime()) latest = event;
  }
  return latest;
}

/** The tier a user was actively pledged at on `date`, from their pledge history. */
export function pledgedTierAt(pledges: readonly PledgeRecord[], date: Date): string | null {
  const latest = pledgeAt(pledges, date);
  if (!latest || !isActivePledge(latest)) return null;
  return latest.tierId;
}

/**
 * The effective admin rule: an admin whose account is not restricted. A restricted admin keeps
 * the flag (so lifting the restriction restores it) but acts as nobody special meanwhile.
 */
export function isEffectiveAdmin<U extends { isAdmin: boolean; restricted: boolean }>(user: U | null | undefined): user is U {
  return Boolean(user?.isAdmin && !user.restricted);
}

/**
 * The entitlement rule, explained: walks the rule's steps in order (docs/product.md#entitlement)
 * and stops at the first that unlocks the post, noting each step that was tried and failed.
 * `unlockReason` and `canDownload` are read off this, so an explanation cannot disagree with
 * a download.
 */
export function explainAccess(post: EntitlementPost, viewer: EntitlementViewer | null): AccessExplanation {
  const unlocks = { tierIds: post.isKofiOnly ? [] : post.currentTierIds, shopItem: post.kofiId };
  const misses: AccessMiss[] = [];
  const granted = (grant: AccessGrant): AccessExplanation => ({ allowed: true, grant, misses, unlocks });
  const refused = (): AccessExplanation => ({ allowed: false, grant: null, misses, unlocks });
  if (viewer?.restricted) {
    misses.push({ kind: "restricted" });
    return refused();
  }
  if (viewer?.isAdmin) return granted({ reason: "admin" });
  if (!post.enabled) {
    misses.push({ kind: "disabled" });
    return refused();
  }
  if (!post.paidContent) return granted({ reason: "free" });
  if (!viewer) {
    misses.push({ kind: "guest" });
    return refused();
  }
  if (viewer.unlockedPostIds.has(post.id)) {
    const early = post.firstPublishedAt ? pledgedTierAt(viewer.pledges, post.firstPublishedAt) : null;
    const source = viewer.details?.grantSources.get(post.id) ?? null;
    return granted({ reason: "unlocked-content", source, pledgedTierId: early, publishedAt: post.firstPublishedAt });
  }
  if (post.isKofiOnly) {
    if (viewer.currentTierId) misses.push({ kind: "shop-only", currentTierId: viewer.currentTierId });
  } else {
    if (viewer.currentTierId && post.currentTierIds.includes(viewer.currentTierId)) return granted({ reason: "current-tier", tierId: viewer.currentTierId });
    if (post.currentTierIds.length > 0) misses.push({ kind: "tier", currentTierId: viewer.currentTierId, needs: post.currentTierIds });
    if (post.firstPublishedAt && post.firstTierIds.length > 0) {
      const tier = pledgedTierAt(viewer.pledges, post.firstPublishedAt);
      if (tier && post.firstTierIds.includes(tier)) return granted({ reason: "first-tier", tierId: tier, publishedAt: post.firstPublishedAt });
      misses.push({
        kind: "first-tier",
        pledge: pledgeAt(viewer.pledges, post.firstPublishedAt),
        publishedAt: post.firstPublishedAt,
        needs: post.firstTierIds,
      });
    }
  }
  if (post.kofiId) {
    const code = post.kofiId;
    if (viewer.purchasedKofiCodes.has(code)) {
      const purchase = viewer.details?.purchases.find((item) => item.code === code) ?? null;
      return granted({ reason: "purchase", code, purchase });
    }
    const pending = viewer.details?.unverifiedPurchases.filter((item) => item.code === code) ?? [];
    for (const purchase of pending) misses.push({ kind: "unverified-purchase", purchase });
    if (pending.length === 0) misses.push({ kind: "not-bought", code });
  }
  return refused();
}

export function unlockReason(post: EntitlementPost, viewer: EntitlementViewer | null): UnlockReason | null {
  return explainAccess(post, viewer).grant?.reason ?? null;
}

/** May this viewer (null for a guest) download this post? */
export function canDownload(post: EntitlementPost, viewer: EntitlementViewer | null): boolean {
  return explainAccess(post, viewer).allowed;
}
