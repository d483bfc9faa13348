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
};

/** How a post is unlocked for a viewer; null when it is locked. */
export type UnlockReason = "free" | "admin" | "unlocked-content" | "current-tier" | "first-tier" | "purchase";

function isActivePledge(event: PledgeRecord): boolean {
  if (event.type === "pledge_delete") return false;
  const status = event.paymentStatus?.toLowerCase();
  return status === undefined || status === "paid";
}

/** The tier a user was actively pledged at on `date`, from their pledge history. */
export function pledgedTierAt(pledges: readonly PledgeRecord[], date: Date): string | null {
  let latest: PledgeRecord | undefined;
  for (const event of pledges) {
    if (event.date.getTime() > date.getTime()) continue;
    if (!latest || event.date.getTime() >= latest.date.getTime()) latest = event;
  }
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

export function unlockReason(post: EntitlementPost, viewer: EntitlementViewer | null): UnlockReason | null {
  if (viewer?.restricted) return null;
  if (viewer?.isAdmin) return "admin";
  if (!post.enabled) return null;
  if (!post.paidContent) return "free";
  if (!viewer) return null;
  if (viewer.unlockedPostIds.has(post.id)) return "unlocked-content";
  if (!post.isKofiOnly) {
    if (viewer.currentTierId && post.currentTierIds.includes(viewer.currentTierId)) return "current-tier";
    if (post.firstPublishedAt && post.firstTierIds.length > 0) {
      const tier = pledgedTierAt(viewer.pledges, post.firstPublishedAt);
      if (tier && post.firstTierIds.includes(tier)) return "first-tier";
    }
  }
  if (post.kofiId && viewer.purchasedKofiCodes.has(post.kofiId)) return "purchase";
  return null;
}

/** May this viewer (null for a guest) download this post? */
export function canDownload(post: EntitlementPost, viewer: EntitlementViewer | null): boolean {
  return unlockReason(post, viewer) !== null;
}
