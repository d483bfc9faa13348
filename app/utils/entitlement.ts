// The entitlement rule (docs/product.md#entitlement): one pure function decides whether a viewer
// may download a post at a given instant. The listing's `unlocked` flag and both download
// endpoints ask it. Time is an input because releases open with it (docs/product.md#releases):
// a scheduled post is hidden until its publication, and each release step widens the post's
// tiers (or makes it free) from its instant on. Steps only ever add, so the answer for a later
// instant unlocks at least what an earlier one did. Who sees a post at all is the post-visibility
// rule (app/utils/post-visibility.ts), asked first.
import { isPostVisible, postHiddenFrom, type PostHidden } from "~/utils/post-visibility";

// The admin rule lives with the visibility rule (admins see every post); its callers read it here too.
export { isEffectiveAdmin } from "~/utils/post-visibility";

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
  /** Scheduled publication: nobody but admins sees or downloads it before this. */
  publishAt: Date | null;
  /** The release steps, any order. */
  releaseSteps: readonly ReleaseStep[];
};

/** One release step: from `opensAt` on, the post opens to `tierIds`, or to everyone when null. */
export type ReleaseStep = { tierIds: readonly string[] | null; opensAt: Date };

function opened(step: ReleaseStep, now: Date): boolean {
  return step.opensAt.getTime() <= now.getTime();
}

/** The post's tiers at `now`: its own, plus those of every step opened by then. */
export function tierIdsAt(post: Pick<EntitlementPost, "currentTierIds" | "releaseSteps">, now: Date): string[] {
  const ids = new Set(post.currentTierIds);
  for (const step of post.releaseSteps) if (step.tierIds && opened(step, now)) for (const id of step.tierIds) ids.add(id);
  return [...ids];
}

/** The step that opened the post to everyone by `now` (the earliest), if any. */
function openedToEveryone(post: Pick<EntitlementPost, "releaseSteps">, now: Date): ReleaseStep | null {
  let first: ReleaseStep | null = null;
  for (const step of post.releaseSteps) {
    if (step.tierIds === null && opened(step, now) && (!first || step.opensAt < first.opensAt)) first = step;
  }
  return first;
}

/** Is the post free at `now`: never paid, or opened to everyone by a step? */
export function isFreeAt(post: Pick<EntitlementPost, "paidContent" | "releaseSteps">, now: Date): boolean {
  return !post.paidContent || openedToEveryone(post, now) !== null;
}

/** The first instant after `now` at which the post's access changes with no write (epoch ms), or undefined. */
export function nextReleaseChange(post: Pick<EntitlementPost, "publishAt" | "releaseSteps">, now: Date): number | undefined {
  let next: number | undefined;
  const consider = (at: number) => {
    if (at > now.getTime() && (next === undefined || at < next)) next = at;
  };
  if (post.publishAt) consider(post.publishAt.getTime());
  for (const step of post.releaseSteps) consider(step.opensAt.getTime());
  return next;
}

/**
 * The post's first release: the instant its first step opens (or, without steps, its
 * publication) and the tiers that reach it then; null when nothing is released to a tier by it
 * (a shop-only post, or one its first release makes free).
 */
export function firstRelease(
  post: Pick<EntitlementPost, "currentTierIds" | "releaseSteps" | "isKofiOnly" | "publishAt" | "firstPublishedAt">,
): { opensAt: Date; tierIds: string[] } | null {
  if (post.isKofiOnly) return null;
  let first: ReleaseStep | null = null;
  for (const step of post.releaseSteps) if (!first || step.opensAt < first.opensAt) first = step;
  if (first?.tierIds === null) return null;
  const opensAt = first?.opensAt ?? post.publishAt ?? post.firstPublishedAt;
  if (!opensAt) return null;
  const tierIds = tierIdsAt(post, opensAt);
  return tierIds.length > 0 ? { opensAt, tierIds } : null;
}

/** The first step still to open at `now` that would open the post to this tier (null: to a guest, so only to everyone). */
export function upcomingStepFor(post: Pick<EntitlementPost, "releaseSteps" | "isKofiOnly">, tierId: string | null, now: Date): ReleaseStep | null {
  let first: ReleaseStep | null = null;
  for (const step of post.releaseSteps) {
    if (opened(step, now)) continue;
    const reaches = step.tierIds === null || (tierId !== null && !post.isKofiOnly && step.tierIds.includes(tierId));
    if (reaches && (!first || step.opensAt < first.opensAt)) first = step;
  }
  return first;
}

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
  /** Posts realizing an inspiration item the user voted for, linked with voter access. */
  voterPostIds: ReadonlySet<string>;
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
export type UnlockReason = "free" | "admin" | "unlocked-content" | "current-tier" | "release" | "first-tier" | "purchase" | "voter";

/** Why a post is unlocked, with what the words need. */
export type AccessGrant =
  | { reason: "free" }
  | { reason: "admin" }
  | { reason: "unlocked-content"; source: "ADMIN" | "SYNC" | null; pledgedTierId: string | null; publishedAt: Date | null }
  | { reason: "current-tier"; tierId: string }
  /** A release step opened the post to the viewer's tier, or to everyone (`tierId` null). */
  | { reason: "release"; tierId: string | null; opensAt: Date }
  | { reason: "first-tier"; tierId: string; publishedAt: Date }
  | { reason: "purchase"; code: string; purchase: AccessPurchase | null }
  /** The viewer voted for the idea the post realizes, and its link gives voters the first release's access. */
  | { reason: "voter"; opensAt: Date };

/** A rule that did not unlock the post, and how close it came. */
export type AccessMiss =
  | { kind: "restricted" }
  /** The post-visibility rule hides the post from the viewer (disabled, or scheduled). */
  | PostHidden
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
  /** A locked post's next release step that opens it to this viewer (their tier, or everyone, or them as a voter). */
  upcoming: { tierId: string | null; opensAt: Date; voter?: true } | null;
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
 * The entitlement rule, explained: walks the rule's steps in order (docs/product.md#entitlement)
 * and stops at the first that unlocks the post, noting each step that was tried and failed.
 * `unlockReason` and `canDownload` are read off this, so an explanation cannot disagree with
 * a download.
 */
export function explainAccess(post: EntitlementPost, viewer: EntitlementViewer | null, now: Date = new Date()): AccessExplanation {
  const tierIds = tierIdsAt(post, now);
  const unlocks = { tierIds: post.isKofiOnly ? [] : tierIds, shopItem: post.kofiId };
  const misses: AccessMiss[] = [];
  const granted = (grant: AccessGrant): AccessExplanation => ({ allowed: true, grant, misses, unlocks, upcoming: null });
  const refused = (): AccessExplanation => {
    // Nothing is promised to a restricted viewer, nor about a post the viewer may not see.
    const promised = !viewer?.restricted && isPostVisible(post, viewer, now);
    const step = promised ? upcomingStepFor(post, viewer?.currentTierId ?? null, now) : null;
    let upcoming: AccessExplanation["upcoming"] = step ? { tierId: step.tierIds ? (viewer?.currentTierId ?? null) : null, opensAt: step.opensAt } : null;
    const asVoter = promised && viewer?.voterPostIds.has(post.id) ? firstRelease(post) : null;
    if (asVoter && asVoter.opensAt > now && (!upcoming || asVoter.opensAt < upcoming.opensAt)) {
      upcoming = { tierId: null, opensAt: asVoter.opensAt, voter: true };
    }
    return { allowed: false, grant: null, misses, unlocks, upcoming };
  };
  if (viewer?.restricted) {
    misses.push({ kind: "restricted" });
    return refused();
  }
  // Never handed out where not seen: the post-visibility rule (a disabled or scheduled post, for anyone but admins).
  const hidden = postHiddenFrom(post, viewer, now);
  if (hidden) {
    misses.push(hidden);
    return refused();
  }
  if (viewer?.isAdmin) return granted({ reason: "admin" });
  // A step that opened the post to everyone is named before "free": the listing reports such a
  // post as not paid, and its cards must name the same reason as the download.
  const everyone = openedToEveryone(post, now);
  if (everyone) return granted({ reason: "release", tierId: null, opensAt: everyone.opensAt });
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
    const tier = viewer.currentTierId;
    if (tier) {
      // A step that opened to the tier is named first: the listing reports a post's tiers as
      // what its steps have reached, so a card and a download must name the same reason.
      let first: ReleaseStep | null = null;
      for (const step of post.releaseSteps) {
        if (step.tierIds?.includes(tier) && opened(step, now) && (!first || step.opensAt < first.opensAt)) first = step;
      }
      if (first) return granted({ reason: "release", tierId: tier, opensAt: first.opensAt });
      if (post.currentTierIds.includes(tier)) return granted({ reason: "current-tier", tierId: tier });
    }
    if (tierIds.length > 0) misses.push({ kind: "tier", currentTierId: tier, needs: tierIds });
    if (post.firstPublishedAt && post.firstTierIds.length > 0) {
      const early = pledgedTierAt(viewer.pledges, post.firstPublishedAt);
      if (early && post.firstTierIds.includes(early)) return granted({ reason: "first-tier", tierId: early, publishedAt: post.firstPublishedAt });
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
  // Last: a voter of the idea the post realizes gets its first release's access whatever their tier.
  if (viewer.voterPostIds.has(post.id)) {
    const release = firstRelease(post);
    if (release && release.opensAt <= now) return granted({ reason: "voter", opensAt: release.opensAt });
  }
  return refused();
}

/**
 * A file's own gate (docs/product.md#files-of-a-version): these tiers, or that shop item. Null, or
 * neither set: the file has the post's gate.
 */
export type FileGate = { tierIds: readonly string[]; shopItem: string | null } | null;

/** Does the file have a gate of its own? */
export function hasOwnGate(gate: FileGate): gate is NonNullable<FileGate> {
  return gate !== null && (gate.tierIds.length > 0 || gate.shopItem !== null);
}

/**
 * The post as the entitlement rule sees it for one of its files: the post itself for a file with
 * the post's gate; else the post (its visibility, admins, the account's grants for it) with the
 * file's gate in place of the post's tiers, shop item and release steps. A release widens the
 * post's gate, not a file's own.
 */
export function postForFile(post: EntitlementPost, gate: FileGate): EntitlementPost {
  if (!hasOwnGate(gate)) return post;
  return {
    ...post,
    paidContent: true,
    isKofiOnly: gate.tierIds.length === 0,
    kofiId: gate.shopItem,
    currentTierIds: gate.tierIds,
    firstTierIds: [],
    releaseSteps: [],
  };
}

/**
 * Who may download which file: the entitlement rule, explained, for the file with this gate (null:
 * the post's, so this is `explainAccess` of the post). Every download, the post page, the manifest
 * and the delta ask this for a file. `explainedPost`: the post's own explanation for this viewer
 * at `now`, when the caller has it (a listing): a file with the post's gate answers it as is.
 */
export function explainFileAccess(
  post: EntitlementPost,
  gate: FileGate,
  viewer: EntitlementViewer | null,
  now: Date = new Date(),
  explainedPost?: AccessExplanation,
): AccessExplanation {
  if (explainedPost && !hasOwnGate(gate)) return explainedPost;
  return explainAccess(postForFile(post, gate), viewer, now);
}

/** The reason a download is recorded with: a step that opened the post to everyone made it free. `gate`: the file's own, if any. */
export function unlockReason(post: EntitlementPost, viewer: EntitlementViewer | null, now?: Date, gate: FileGate = null): UnlockReason | null {
  const grant = explainFileAccess(post, gate, viewer, now).grant;
  if (grant?.reason === "release" && grant.tierId === null) return "free";
  return grant?.reason ?? null;
}

/** May this viewer (null for a guest) download this post at `now`? */
export function canDownload(post: EntitlementPost, viewer: EntitlementViewer | null, now?: Date): boolean {
  return explainAccess(post, viewer, now).allowed;
}
