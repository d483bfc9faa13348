import { describe, expect, it } from "vitest";
import type { ListedReleaseStep } from "~/utils/release-ladder";
import { lockedAction } from "./locked-action";
import { ladderWords, releaseLadder } from "./release-ladder";

const T1 = "t1";
const T2 = "t2";
const T3 = "t3";
const tiers = [
  { tierId: T1, title: "Tier 1", subscribeLabel: "Tier 1" },
  { tierId: T2, title: "Tier 2", subscribeLabel: "Tier 2" },
  { tierId: T3, title: "Tier 3", subscribeLabel: "Tier 3" },
];
const now = new Date("2026-11-27T12:00:00Z");

function step(audience: string | null, tierIds: string[] | null, opensAt: string): ListedReleaseStep {
  return { audience_tier_id: audience, tier_ids: tierIds, after_days: null, opens_on: null, opens_at: new Date(opensAt).toISOString() };
}

/** Tier 3 now, Tier 2 on 29 Nov 2026, Tier 1 on 6 Dec 2026, everyone on 21 Jan 2027: the cascade of the design card. */
const cascade = {
  tiers: [T3],
  is_kofiOnly: false,
  kofi_id: null,
  release_steps: [
    step(T1, [T1, T2, T3], "2026-12-06T10:00:00Z"),
    step(T3, [T3], "2026-11-20T10:00:00Z"),
    step(null, null, "2027-01-21T10:00:00Z"),
    step(T2, [T2, T3], "2026-11-29T10:00:00Z"),
  ],
};

describe("releaseLadder", () => {
  it("lists every step in opening order, opened ones as now, and marks the viewer's own", () => {
    expect(ladderWords(releaseLadder(cascade, tiers, T2, now)!)).toBe(
      "Tier 3 now · Tier 2 on 29 Nov 2026 (your step) · Tier 1 on 6 Dec 2026 · Free on 21 Jan 2027",
    );
    expect(ladderWords(releaseLadder(cascade, tiers, T1, now)!)).toBe(
      "Tier 3 now · Tier 2 on 29 Nov 2026 · Tier 1 on 6 Dec 2026 (your step) · Free on 21 Jan 2027",
    );
    expect(releaseLadder(cascade, tiers, T3, now)!.map((rung) => rung.yours)).toEqual([true, false, false, false]);
  });

  it("marks the step to everyone for a viewer without a tier", () => {
    const rungs = releaseLadder(cascade, tiers, null, now)!;
    expect(rungs.filter((rung) => rung.yours).map((rung) => rung.name)).toEqual(["Free"]);
  });

  it("shows the tiers the post had before its steps as the first rung, folded into a step that reaches them once it opens", () => {
    const own = { ...cascade, release_steps: cascade.release_steps.filter((s) => s.audience_tier_id !== T3) };
    expect(ladderWords(releaseLadder(own, tiers, T3, now)!)).toBe(
      "Tier 3 now (your step) · Tier 2 on 29 Nov 2026 · Tier 1 on 6 Dec 2026 · Free on 21 Jan 2027",
    );
    // Later the listing's tiers are the post's own plus the opened Tier 2 step's, which reaches Tier 3 too.
    const later = new Date("2026-11-30T00:00:00Z");
    expect(ladderWords(releaseLadder({ ...own, tiers: [T2, T3] }, tiers, T3, later)!)).toBe(
      "Tier 2 now (your step) · Tier 1 on 6 Dec 2026 · Free on 21 Jan 2027",
    );
  });

  it("is null once no step is ahead, or without steps", () => {
    expect(releaseLadder(cascade, tiers, T1, new Date("2027-02-01T00:00:00Z"))).toBeNull();
    expect(releaseLadder({ ...cascade, release_steps: [] }, tiers, T1, now)).toBeNull();
  });

  it("names no step the viewer's when none reaches their tier and none is to everyone", () => {
    const paidOnly = { ...cascade, release_steps: cascade.release_steps.filter((s) => s.tier_ids !== null && s.audience_tier_id !== T1) };
    expect(releaseLadder(paidOnly, tiers, T1, now)!.some((rung) => rung.yours)).toBe(false);
  });

  it("keeps only the steps to everyone for a shop-only post", () => {
    expect(ladderWords(releaseLadder({ ...cascade, is_kofiOnly: true }, tiers, T2, now)!)).toBe("Free on 21 Jan 2027 (your step)");
  });
});

describe("lockedAction", () => {
  it("puts a supporter's own date first and the tier that has it now as a quiet secondary", () => {
    const action = lockedAction(cascade, tiers, T2, new Date("2026-11-29T10:00:00Z"), now);
    expect(action.primary).toBe("turn");
    expect(action.offer?.tierId).toBe(T3);
    expect(action.secondaryWords).toBe("Get it now with Tier 3");
  });

  it("offers a supporter further down the ladder a sooner tier, the soonest first", () => {
    const action = lockedAction(cascade, tiers, T1, new Date("2026-12-06T10:00:00Z"), now);
    expect(action).toMatchObject({ primary: "turn", offer: { tierId: T3, opensAt: null }, secondaryWords: "Get it now with Tier 3" });
  });

  it("offers a fan the tier that gets the post soonest, of equals the cheapest", () => {
    const noFree = { ...cascade, release_steps: cascade.release_steps.filter((s) => s.tier_ids !== null) };
    expect(lockedAction(noFree, tiers, null, null, now)).toMatchObject({
      primary: "offer",
      offer: { tierId: T3, subscribeLabel: "Tier 3" },
      secondaryWords: null,
    });
    const both = { ...noFree, tiers: [T2, T3] };
    expect(lockedAction(both, tiers, null, null, now).offer?.tierId).toBe(T2);
    // Nothing has it yet: the first step's tier, as soon as it opens.
    const ahead = { ...noFree, tiers: [], release_steps: noFree.release_steps.filter((s) => s.audience_tier_id !== T3) };
    expect(lockedAction(ahead, tiers, null, null, now).offer).toMatchObject({ tierId: T2, opensAt: "2026-11-29T10:00:00.000Z" });
  });

  it("gives a fan whose free day is coming that date first, the tier as the secondary", () => {
    const action = lockedAction(cascade, tiers, null, new Date("2027-01-21T10:00:00Z"), now);
    expect(action).toMatchObject({ primary: "turn", secondaryWords: "Get it now with Tier 3" });
  });

  it("offers only tiers with a Subscribe label, never the viewer's own, and falls back to the shop", () => {
    const unlabelled = tiers.map((tier) => (tier.tierId === T3 ? { ...tier, subscribeLabel: null } : tier));
    expect(lockedAction({ ...cascade, release_steps: [] }, unlabelled, null, null, now)).toEqual({ primary: null, offer: null, secondaryWords: null });
    expect(lockedAction({ ...cascade, release_steps: [], kofi_id: "ABC" }, unlabelled, null, null, now).primary).toBe("shop");
    expect(lockedAction({ ...cascade, release_steps: [], tiers: [T2] }, tiers, T2, null, now).offer).toBeNull();
  });

  it("offers no tier a shop-only post", () => {
    expect(lockedAction({ ...cascade, is_kofiOnly: true, kofi_id: "ABC" }, tiers, null, null, now)).toMatchObject({ primary: "shop", offer: null });
  });

  it("offers no secondary when no tier gets it before the viewer's turn", () => {
    const action = lockedAction(
      { ...cascade, tiers: [], release_steps: cascade.release_steps.filter((s) => s.audience_tier_id !== T3) },
      tiers,
      T2,
      new Date("2026-11-29T10:00:00Z"),
      now,
    );
    expect(action).toEqual({ primary: "turn", offer: null, secondaryWords: null });
  });
});
