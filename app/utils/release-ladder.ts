// The release ladder (docs/design.md#the-ladder-and-the-action-rule): a post released in steps
// shows every step in opening order, "Tier 3 now · Tier 2 on 29 Nov · Tier 1 on 6 Dec · Free on
// 21 Jan", with the viewer's own step marked. Read from the listing's data alone (its `tiers` at
// the instant of the answer and its `release_steps`), so cards, list rows and the post page agree.
import { formatDay } from "~/utils/dates";

/** A release step as the listing gives it (`release_steps`, in opening order). */
export type ListedReleaseStep = {
  /** The tier picked, or null for everyone. */
  audience_tier_id: string | null;
  /** The tiers it opens to (the picked one and those above); null for everyone. */
  tier_ids: string[] | null;
  after_days: number | null;
  opens_on: string | null;
  opens_at: string;
};

export type LadderPost = { tiers: readonly string[]; release_steps: readonly ListedReleaseStep[]; is_kofiOnly: boolean };

/** Tiers as the listing orders them: cheapest first. */
export type LadderTier = { tierId: string; title: string };

export type LadderRung = {
  /** The audience's name: the cheapest tier the rung reaches, or "Free". */
  name: string;
  /** The tiers it reaches; null for everyone. */
  tierIds: string[] | null;
  /** When it opens (ISO); the rung is open ("now") when this is not after the instant asked. */
  opensAt: string | null;
  open: boolean;
  /** "now" or "on 29 Nov 2026". */
  when: string;
  /** The rung at which the post opens to the viewer (their tier's first rung, or Free without a tier). */
  yours: boolean;
};

function cheapestName(tierIds: readonly string[], tiers: readonly LadderTier[]): string {
  const first = tiers.find((tier) => tierIds.includes(tier.tierId));
  return first?.title ?? "Unknown Tier";
}

/**
 * The post's ladder at `now` for a viewer on `viewerTierId` (null: no tier); null when the post
 * is not in a cascade: no step still ahead. The first rung is the tiers the post already has that
 * no opened step gave it; each step is one rung, opened ones reading "now". A shop-only post
 * opens to no tier, so only its steps to everyone count.
 */
export function releaseLadder(post: LadderPost, tiers: readonly LadderTier[], viewerTierId: string | null, now: Date): LadderRung[] | null {
  const steps = [...post.release_steps]
    .filter((step) => !post.is_kofiOnly || step.tier_ids === null)
    .sort((a, b) => Date.parse(a.opens_at) - Date.parse(b.opens_at));
  if (!steps.some((step) => Date.parse(step.opens_at) > now.getTime())) return null;
  const rungs: Omit<LadderRung, "yours">[] = [];
  const fromSteps = new Set<string>();
  for (const step of steps) if (step.tier_ids && Date.parse(step.opens_at) <= now.getTime()) for (const id of step.tier_ids) fromSteps.add(id);
  const own = post.is_kofiOnly ? [] : post.tiers.filter((id) => !fromSteps.has(id));
  if (own.length > 0) rungs.push({ name: cheapestName(own, tiers), tierIds: [...own], opensAt: null, open: true, when: "now" });
  for (const step of steps) {
    const open = Date.parse(step.opens_at) <= now.getTime();
    const name = step.tier_ids === null ? "Free" : cheapestName([step.audience_tier_id ?? step.tier_ids[0] ?? ""], tiers);
    rungs.push({ name, tierIds: step.tier_ids, opensAt: step.opens_at, open, when: open ? "now" : `on ${formatDay(step.opens_at)}` });
  }
  const mine = rungs.findIndex((rung) => rung.tierIds === null || (viewerTierId !== null && rung.tierIds.includes(viewerTierId)));
  return rungs.map((rung, index) => ({ ...rung, yours: index === mine }));
}

/** The ladder in one line, the viewer's step named: "Tier 3 now · Tier 2 on 29 Nov (your step) · Free on 21 Jan". */
export function ladderWords(rungs: readonly LadderRung[]): string {
  return rungs.map((rung) => `${rung.name} ${rung.when}${rung.yours ? " (your step)" : ""}`).join(" · ");
}
