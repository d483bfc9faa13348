// The entitlement decision in plain words (docs/product.md#access-explained): one sentence for
// why a post is unlocked, one line per rule that came close, and what would unlock a locked one.
// Shared by the library cards and the admins' access check, so both say the same thing.
import { formatDay, formatDayTime } from "~/utils/dates";
import type { AccessExplanation, AccessGrant, AccessMiss } from "~/utils/entitlement";

/** How far off an instant is: "in 5 days", "in 3 hours", "in 20 minutes". */
export function timeUntil(at: Date, now: Date): string {
  const minutes = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 60_000));
  const plural = (count: number, unit: string) => `in ${count} ${unit}${count === 1 ? "" : "s"}`;
  if (minutes < 60) return plural(minutes, "minute");
  if (minutes < 24 * 60) return plural(Math.round(minutes / 60), "hour");
  return plural(Math.round(minutes / (24 * 60)), "day");
}

/**
 * The first instant after `now` at which `timeUntil(at, …)` says something else, or null when it
 * does not before `at` ("in 1 minute" stays until the instant itself, a publication or step that
 * changes the page anyway). The words depend only on the whole minutes left (rounded up), so they
 * turn when the minutes left drop to the largest count that reads otherwise.
 */
export function timeUntilTurnsAt(at: Date, now: Date): number | null {
  const left = at.getTime() - now.getTime();
  if (left <= 0) return null;
  const minutes = Math.max(1, Math.ceil(left / 60_000));
  // The minutes counts at which the words are the same as now are a range; `below` is the largest under it.
  let below: number;
  if (minutes < 60) below = minutes - 1;
  else if (minutes < 24 * 60) below = Math.max(59, 60 * Math.round(minutes / 60) - 31);
  else below = Math.max(24 * 60 - 1, 24 * 60 * Math.round(minutes / (24 * 60)) - 24 * 30 - 1);
  return below >= 1 ? at.getTime() - below * 60_000 : null;
}

/** A locked post's next step for this viewer: "Opens to your Tier 2 on 10 Dec 2026 (in 5 days)". */
export function upcomingWords(upcoming: NonNullable<AccessExplanation["upcoming"]>, titles: Titles, now: Date): string {
  const when = `${formatDay(upcoming.opensAt)} (${timeUntil(upcoming.opensAt, now)})`;
  if (upcoming.voter) return `Opens to you as a voter on ${when}`;
  return upcoming.tierId ? `Opens to your ${tierName(upcoming.tierId, titles)} on ${when}` : `Free for everyone on ${when}`;
}

type Titles = ReadonlyMap<string, string>;

/** A tier's title; an id this site has no tier row for reads as the account page says it. */
export function tierName(tierId: string, titles: Titles): string {
  return titles.get(tierId) ?? "Unknown Tier";
}

function tierList(tierIds: readonly string[], titles: Titles): string {
  const names = [...new Set(tierIds.map((id) => tierName(id, titles)))];
  if (names.length <= 1) return names[0] ?? "a tier";
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

function earlySupporter(tierId: string, publishedAt: Date, titles: Titles): string {
  return `Early supporter: you were on ${tierName(tierId, titles)} when this was published on ${formatDay(publishedAt)}`;
}

/** Why an unlocked post is unlocked. */
export function grantWords(grant: AccessGrant, titles: Titles): string {
  switch (grant.reason) {
    case "free":
      return "Free";
    case "admin":
      return "Admin";
    case "current-tier":
      return `Your ${tierName(grant.tierId, titles)} membership`;
    case "release":
      return releaseWords(grant, titles);
    case "first-tier":
      return earlySupporter(grant.tierId, grant.publishedAt, titles);
    case "purchase":
      return grant.purchase ? `Bought on ${formatDay(grant.purchase.purchasedAt)} with shop email ${grant.purchase.email}` : "Bought in the shop";
    case "voter":
      return `You voted for the idea this post realizes: released to its voters on ${formatDay(grant.opensAt)}`;
    case "unlocked-content":
      // The members sync writes early-supporter unlocks; everything else there is an admin grant.
      if (grant.source !== "SYNC") return "Granted by the creator";
      return grant.pledgedTierId && grant.publishedAt
        ? earlySupporter(grant.pledgedTierId, grant.publishedAt, titles)
        : "Early supporter (unlocked by the membership sync)";
  }
}

/** "Released to Tier 2 on 10 Dec 2026", or to everyone. */
export function releaseWords(grant: Extract<AccessGrant, { reason: "release" }>, titles?: Titles): string {
  const audience = grant.tierId ? (titles ? tierName(grant.tierId, titles) : "your tier") : "everyone";
  return `Released to ${audience} on ${formatDay(grant.opensAt)}`;
}

function pledgeWords(miss: Extract<AccessMiss, { kind: "first-tier" }>, titles: Titles): string {
  const day = formatDay(miss.publishedAt);
  const needs = `this post's early supporters needed ${tierList(miss.needs, titles)}`;
  const pledge = miss.pledge;
  if (!pledge) return `Not pledged on the publish date (${day}); ${needs}`;
  if (pledge.type === "pledge_delete") return `Pledge had ended by the publish date (${day}); ${needs}`;
  const status = pledge.paymentStatus;
  if (status && status.toLowerCase() !== "paid") {
    return `Pledged ${pledge.tierId ? tierName(pledge.tierId, titles) : "no tier"} on the publish date (${day}), but the payment was ${status}; ${needs}`;
  }
  return `Pledged ${pledge.tierId ? tierName(pledge.tierId, titles) : "no tier"} on the publish date (${day}); ${needs}`;
}

/** One rule that was tried and did not unlock the post. */
export function missWords(miss: AccessMiss, titles: Titles): string {
  switch (miss.kind) {
    case "restricted":
      return "Restricted account: nothing can be downloaded";
    case "disabled":
      return "This post is disabled";
    case "scheduled":
      return `Scheduled for ${formatDayTime(miss.publishAt)}: not published yet`;
    case "guest":
      return "Not logged in";
    case "shop-only":
      return `Sold in the shop only: a ${miss.currentTierId ? tierName(miss.currentTierId, titles) : "tier"} membership does not unlock it`;
    case "tier":
      return miss.currentTierId
        ? `Current tier ${tierName(miss.currentTierId, titles)}; this post needs ${tierList(miss.needs, titles)}`
        : `No current membership; this post needs ${tierList(miss.needs, titles)}`;
    case "first-tier":
      return pledgeWords(miss, titles);
    case "unverified-purchase":
      return `Bought on ${formatDay(miss.purchase.purchasedAt)} with ${miss.purchase.email}, which is linked to this account but not verified`;
    case "not-bought":
      return `Not bought in the shop (item ${miss.code})`;
  }
}

/** What a card or the access check shows: plain, serialisable. */
export type AccessSummary = {
  allowed: boolean;
  /** Why it is unlocked, or "Locked". */
  summary: string;
  /** The rules that came close, in words. */
  misses: string[];
  /** Tiers whose membership would unlock it (ids), and the shop item that would. */
  unlockTierIds: string[];
  shopItem: string | null;
  /** When the post's next release step opens it to the viewer, in words; null when none will. */
  upcoming: string | null;
};

export function describeAccess(explanation: AccessExplanation, titles: Titles, now: Date = new Date()): AccessSummary {
  return {
    upcoming: explanation.upcoming ? upcomingWords(explanation.upcoming, titles, now) : null,
    allowed: explanation.allowed,
    summary: explanation.grant ? grantWords(explanation.grant, titles) : "Locked",
    misses: explanation.misses.map((miss) => missWords(miss, titles)),
    unlockTierIds: [...explanation.unlocks.tierIds],
    shopItem: explanation.unlocks.shopItem,
  };
}
