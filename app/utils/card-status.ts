// A library card's words for its fans (docs/design.md#the-library-card): the short reason an owned
// post is theirs, shown on one line next to Download, and the near misses of a locked post
// without the shop's internal item codes. The admins' access check keeps the full words of
// app/utils/access-words.ts; both read the same `explainAccess` walk.
import { describeAccess, missWords, releaseWords, tierName, type AccessSummary } from "~/utils/access-words";
import { formatDay } from "~/utils/dates";
import type { AccessExplanation, AccessGrant, AccessMiss } from "~/utils/entitlement";
import { lockedAction, type ActionPost, type ActionTier, type LockedAction } from "~/utils/locked-action";
import { releaseLadder, type LadderPost, type LadderRung } from "~/utils/release-ladder";

type Titles = ReadonlyMap<string, string>;

/** Why an owned post is the viewer's, in a few words: "Included in your Tier 2 membership". */
export function cardStatusWords(grant: AccessGrant, titles: Titles): string {
  switch (grant.reason) {
    case "free":
      return "Free for everyone";
    case "admin":
      return "Admin access";
    case "current-tier":
      return `Included in your ${tierName(grant.tierId, titles)} membership`;
    case "release":
      return releaseWords(grant, titles);
    case "first-tier":
      return `Early supporter on ${tierName(grant.tierId, titles)}`;
    case "purchase":
      return grant.purchase ? `Bought on ${formatDay(grant.purchase.purchasedAt)} with ${grant.purchase.email}` : "Bought in the shop";
    case "voter":
      return `Yours as a voter since ${formatDay(grant.opensAt)}`;
    case "unlocked-content":
      if (grant.source !== "SYNC") return "Granted by the creator";
      return grant.pledgedTierId ? `Early supporter on ${tierName(grant.pledgedTierId, titles)}` : "Early supporter";
  }
}

/** A near miss as a fan reads it: the shop's item code is for the creator, not for them. */
export function fanMissWords(miss: AccessMiss, titles: Titles): string {
  return miss.kind === "not-bought" ? "Not bought in the shop" : missWords(miss, titles);
}

/** What a library card shows: the access summary, its short status, and fans' near misses. */
export type CardAccess = AccessSummary & {
  /** Owned posts: the short reason next to Download; null when locked. */
  status: string | null;
  /** The release ladder with the viewer's step marked; null when the post is not in a cascade. */
  ladder?: LadderRung[] | null;
  /** What a locked post puts first (the action rule). */
  action?: LockedAction;
};

export function describeCardAccess(explanation: AccessExplanation, titles: Titles, now?: Date): CardAccess {
  return {
    ...describeAccess(explanation, titles, now),
    misses: explanation.misses.map((miss) => fanMissWords(miss, titles)),
    status: explanation.allowed && explanation.grant ? cardStatusWords(explanation.grant, titles) : null,
  };
}

/**
 * A card's ladder and action rule for a viewer on `viewerTierId` (null: none), from the listing's
 * data and the explanation's next step for them.
 */
export function describeLadder(
  post: LadderPost & ActionPost,
  tiers: readonly ActionTier[],
  viewerTierId: string | null,
  explanation: AccessExplanation,
  now: Date,
): Pick<CardAccess, "ladder" | "action"> {
  return {
    ladder: releaseLadder(post, tiers, viewerTierId, now),
    action: lockedAction(post, tiers, viewerTierId, explanation.allowed ? null : (explanation.upcoming?.opensAt ?? null), now),
  };
}

/** The kept version a locked card offers (docs/product.md#keep-what-you-downloaded). */
export type KeptOffer = { versionId: string; label: string; words: string };

/**
 * "You keep V2.1, downloaded on 3 Dec 2026 while on Tier 2; V2.3 needs Tier 2": the version a
 * lapsed member keeps, and what the current one needs (left out when they keep the current one).
 */
export function keptWords(
  kept: { label: string; downloadedAt: Date; tierId: string | null },
  current: { label: string; tierIds: readonly string[] },
  titles: Titles,
): string {
  const how = kept.tierId ? ` while on ${tierName(kept.tierId, titles)}` : " through a membership";
  const words = `You keep ${kept.label}, downloaded on ${formatDay(kept.downloadedAt)}${how}`;
  if (kept.label === current.label) return words;
  const names = [...new Set(current.tierIds.map((id) => tierName(id, titles)))];
  const needs = names.length === 0 ? "a membership" : names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
  return `${words}; ${current.label} needs ${needs}`;
}
