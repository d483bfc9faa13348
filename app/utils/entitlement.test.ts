import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canDownload, isEffectiveAdmin, pledgedTierAt, unlockReason, type EntitlementPost } from "./entitlement";
import { memberWithNothing } from "./entitlement.fixtures";

const published = new Date("2026-03-01T00:00:00Z");

function post(overrides: Partial<EntitlementPost> = {}): EntitlementPost {
  return {
    id: "p1",
    enabled: true,
    paidContent: true,
    isKofiOnly: false,
    kofiId: "K1",
    currentTierIds: ["T2"],
    firstTierIds: ["T3"],
    firstPublishedAt: published,
    publishAt: null,
    releaseSteps: [],
    ...overrides,
  };
}

const viewer = memberWithNothing;

describe("canDownload: each rule", () => {
  it("1. free posts are open to everyone, guests included", () => {
    expect(unlockReason(post({ paidContent: false }), null)).toBe("free");
    expect(unlockReason(post({ paidContent: false }), viewer())).toBe("free");
  });

  it("guests get nothing paid", () => {
    expect(canDownload(post(), null)).toBe(false);
  });

  it("2. admins get everything, disabled posts too", () => {
    expect(unlockReason(post({ enabled: false }), viewer({ isAdmin: true }))).toBe("admin");
  });

  it("3. unlocked_content unlocks exactly that post", () => {
    const user = viewer({ unlockedPostIds: new Set(["p1"]) });
    expect(unlockReason(post(), user)).toBe("unlocked-content");
    expect(canDownload(post({ id: "p2" }), user)).toBe(false);
  });

  it("4. the current tier unlocks posts of that tier unless Ko-fi only", () => {
    expect(unlockReason(post(), viewer({ currentTierId: "T2" }))).toBe("current-tier");
    expect(canDownload(post(), viewer({ currentTierId: "T1" }))).toBe(false);
    expect(canDownload(post({ isKofiOnly: true }), viewer({ currentTierId: "T2" }))).toBe(false);
  });

  it("5. a first tier pledged at first publication unlocks it, unless Ko-fi only", () => {
    const early = viewer({ pledges: [{ type: "pledge_start", date: new Date("2026-02-01T00:00:00Z"), tierId: "T3", paymentStatus: "Paid" }] });
    expect(unlockReason(post(), early)).toBe("first-tier");
    expect(canDownload(post({ isKofiOnly: true }), early)).toBe(false);
    expect(canDownload(post({ firstPublishedAt: null }), early)).toBe(false);
    const late = viewer({ pledges: [{ type: "pledge_start", date: new Date("2026-03-02T00:00:00Z"), tierId: "T3", paymentStatus: "Paid" }] });
    expect(canDownload(post(), late)).toBe(false);
    const left = viewer({
      pledges: [
        { type: "pledge_start", date: new Date("2026-01-01T00:00:00Z"), tierId: "T3", paymentStatus: "Paid" },
        { type: "pledge_delete", date: new Date("2026-02-15T00:00:00Z"), tierId: "T3", paymentStatus: null },
      ],
    });
    expect(canDownload(post(), left)).toBe(false);
    const declined = viewer({ pledges: [{ type: "subscription", date: new Date("2026-02-20T00:00:00Z"), tierId: "T3", paymentStatus: "Declined" }] });
    expect(canDownload(post(), declined)).toBe(false);
  });

  it("6. a purchase of the post's Ko-fi item unlocks it, Ko-fi only posts too", () => {
    const buyer = viewer({ purchasedKofiCodes: new Set(["K1"]) });
    expect(unlockReason(post(), buyer)).toBe("purchase");
    expect(unlockReason(post({ isKofiOnly: true }), buyer)).toBe("purchase");
    expect(canDownload(post({ kofiId: null }), buyer)).toBe(false);
    expect(canDownload(post({ kofiId: "K2" }), buyer)).toBe(false);
  });

  it("disabled posts are closed to everyone but admins", () => {
    expect(canDownload(post({ enabled: false, paidContent: false }), null)).toBe(false);
    expect(canDownload(post({ enabled: false }), viewer({ unlockedPostIds: new Set(["p1"]) }))).toBe(false);
  });

  it("restricted users are refused everything, free posts and admin rights included", () => {
    expect(canDownload(post({ paidContent: false }), viewer({ restricted: true }))).toBe(false);
    expect(canDownload(post(), viewer({ restricted: true, isAdmin: true }))).toBe(false);
  });
});

describe("pledgedTierAt", () => {
  it("answers the tier of the latest event on or before the date", () => {
    const pledges = [
      { type: "pledge_upgrade", date: new Date("2026-02-01T00:00:00Z"), tierId: "T3", paymentStatus: "Paid" },
      { type: "pledge_start", date: new Date("2026-01-01T00:00:00Z"), tierId: "T1", paymentStatus: "Paid" },
    ];
    expect(pledgedTierAt(pledges, new Date("2026-01-15T00:00:00Z"))).toBe("T1");
    expect(pledgedTierAt(pledges, new Date("2026-02-01T00:00:00Z"))).toBe("T3");
    expect(pledgedTierAt(pledges, new Date("2025-12-31T00:00:00Z"))).toBeNull();
  });
});

// Property: the rule as a whole equals the definition in docs/product.md#entitlement, written independently.
describe("canDownload: every combination", () => {
  const tier = fc.constantFrom("T1", "T2", "T3");
  const instant = fc.integer({ min: 0, max: 30 }).map((days) => new Date(published.getTime() + days * 86_400_000));
  const arbitraryPost = fc.record({
    id: fc.constantFrom("p1", "p2"),
    enabled: fc.boolean(),
    paidContent: fc.boolean(),
    isKofiOnly: fc.boolean(),
    kofiId: fc.option(fc.constantFrom("K1", "K2"), { nil: null }),
    currentTierIds: fc.uniqueArray(tier, { maxLength: 3 }),
    firstTierIds: fc.uniqueArray(tier, { maxLength: 3 }),
    firstPublishedAt: fc.option(fc.constant(published), { nil: null }),
    // Time: a scheduled publication and release steps at days 0-30 after `published`.
    publishAt: fc.option(instant, { nil: null }),
    releaseSteps: fc.array(fc.record({ tierIds: fc.option(fc.uniqueArray(tier, { minLength: 1, maxLength: 3 }), { nil: null }), opensAt: instant }), {
      maxLength: 3,
    }),
  });
  const arbitraryViewer = fc.option(
    fc.record({
      isAdmin: fc.boolean(),
      restricted: fc.boolean(),
      currentTierId: fc.option(tier, { nil: null }),
      unlockedPostIds: fc.uniqueArray(fc.constantFrom("p1", "p2"), { maxLength: 2 }).map((ids) => new Set(ids)),
      purchasedKofiCodes: fc.uniqueArray(fc.constantFrom("K1", "K2"), { maxLength: 2 }).map((codes) => new Set(codes)),
      // At most one active pledge before publication keeps the oracle simple.
      pledges: fc
        .option(tier, { nil: null })
        .map((tierId) => (tierId ? [{ type: "pledge_start", date: new Date("2026-01-01T00:00:00Z"), tierId, paymentStatus: "Paid" }] : [])),
      voterPostIds: fc.uniqueArray(fc.constantFrom("p1", "p2"), { maxLength: 2 }).map((ids) => new Set(ids)),
    }),
    { nil: null },
  );

  it("matches the written rule", () => {
    fc.assert(
      fc.property(arbitraryPost, arbitraryViewer, instant, (p, v, now) => {
        const earlyTier = v?.pledges[0]?.tierId ?? null;
        const opened = p.releaseSteps.filter((step) => step.opensAt <= now);
        const tiersNow = [...p.currentTierIds, ...opened.flatMap((step) => step.tierIds ?? [])];
        // Voters of the idea the post realizes: the first release (first step, else publication) to a tier.
        const firstStep = [...p.releaseSteps].sort((a, b) => a.opensAt.getTime() - b.opensAt.getTime())[0];
        const firstAt = firstStep ? firstStep.opensAt : (p.publishAt ?? p.firstPublishedAt);
        const tiersAtFirst = firstAt
          ? [...p.currentTierIds, ...p.releaseSteps.filter((step) => step.opensAt <= firstAt).flatMap((step) => step.tierIds ?? [])]
          : [];
        const voterGets = !p.isKofiOnly && firstStep?.tierIds !== null && firstAt !== null && firstAt <= now && tiersAtFirst.length > 0;
        const published = p.publishAt === null || p.publishAt <= now;
        const expected =
          !v?.restricted &&
          (v?.isAdmin === true ||
            (p.enabled &&
              published &&
              (!p.paidContent ||
                opened.some((step) => step.tierIds === null) ||
                (v !== null &&
                  (v.unlockedPostIds.has(p.id) ||
                    (!p.isKofiOnly && v.currentTierId !== null && tiersNow.includes(v.currentTierId)) ||
                    (!p.isKofiOnly && p.firstPublishedAt !== null && earlyTier !== null && p.firstTierIds.includes(earlyTier)) ||
                    (p.kofiId !== null && v.purchasedKofiCodes.has(p.kofiId)) ||
                    (v.voterPostIds.has(p.id) && voterGets))))));
        expect(canDownload(p, v, now)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("isEffectiveAdmin", () => {
  it("is an admin whose account is not restricted", () => {
    expect(isEffectiveAdmin({ isAdmin: true, restricted: false })).toBe(true);
    expect(isEffectiveAdmin({ isAdmin: true, restricted: true })).toBe(false);
    expect(isEffectiveAdmin({ isAdmin: false, restricted: false })).toBe(false);
    expect(isEffectiveAdmin(null)).toBe(false);
  });
});
