// The action rule (docs/design.md#the-ladder-and-the-action-rule): what a locked post puts first.
// A viewer whose own turn is coming sees its date first and an upgrade only as a quiet secondary
// ("Get it now with Tier 3"); anyone else is offered the tier that gets the post soonest, and of
// those the cheapest. One pure function, so the card, the list row and the post page agree.
import type { ListedReleaseStep } from "~/utils/release-ladder";
import { formatDay } from "~/utils/dates";

export type ActionPost = { tiers: readonly string[]; release_steps: readonly ListedReleaseStep[]; is_kofiOnly: boolean; kofi_id: string | null };

/** Tiers cheapest first, as the listing gives them. */
export type ActionTier = { tierId: string; title: string; subscribeLabel: string | null };

export type TierOffer = {
  tierId: string;
  title: string;
  subscribeLabel: string;
  /** When the post opens to this tier (ISO); null: it has it now. */
  opensAt: string | null;
};

export type LockedAction = {
  /** What comes first: the viewer's own date, the tier offer, the shop, or nothing. */
  primary: "turn" | "offer" | "shop" | null;
  /** The tier offered (as the primary button, or the quiet secondary under the viewer's date). */
  offer: TierOffer | null;
  /** The offer's words where it is the secondary: "Get it now with Tier 3". */
  secondaryWords: string | null;
};

/** When the post opens to a tier at `now`: now (null), the first step still ahead that reaches it, or never (undefined). */
function opensToTier(post: ActionPost, tierId: string, now: Date): string | null | undefined {
  if (post.tiers.includes(tierId)) return null;
  let first: string | undefined;
  for (const step of post.release_steps) {
    if (!step.tier_ids?.includes(tierId) || Date.parse(step.opens_at) <= now.getTime()) continue;
    if (first === undefined || Date.parse(step.opens_at) < Date.parse(first)) first = step.opens_at;
  }
  return first;
}

/**
 * The rule. `turn` is when the post opens to this viewer (their tier's step, a step to
 * everyone, or as a voter), null when nothing is scheduled for them. The tier offered is one the
 * viewer is not on, with a Subscribe label, that gets the post before their turn: the soonest,
 * and of equals the cheapest.
 */
export function lockedAction(post: ActionPost, tiers: readonly ActionTier[], viewerTierId: string | null, turn: Date | null, now: Date): LockedAction {
  let offer: TierOffer | null = null;
  if (!post.is_kofiOnly) {
    for (const tier of tiers) {
      if (!tier.subscribeLabel || tier.tierId === viewerTierId) continue;
      const opensAt = opensToTier(post, tier.tierId, now);
      if (opensAt === undefined) continue;
      const at = opensAt === null ? now.getTime() : Date.parse(opensAt);
      if (turn && at >= turn.getTime()) continue;
      const best = offer === null ? Number.POSITIVE_INFINITY : offer.opensAt === null ? now.getTime() : Date.parse(offer.opensAt);
      // Tiers come cheapest first, so only a strictly sooner one replaces the pick.
      if (at < best) offer = { tierId: tier.tierId, title: tier.title, subscribeLabel: tier.subscribeLabel, opensAt };
    }
  }
  const primary = turn ? "turn" : offer ? "offer" : post.kofi_id ? "shop" : null;
  const secondaryWords = primary === "turn" && offer ? `Get it ${offer.opensAt === null ? "now" : `on ${formatDay(offer.opensAt)}`} with ${offer.title}` : null;
  return { primary, offer, secondaryWords };
}
