// Properties of the explained entitlement rule: it decides exactly as the documented table
// (docs/product.md#entitlement, restated here independently), and its words name what decided.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeAccess } from "./access-words";
import { canDownload, explainAccess, unlockReason, type EntitlementPost, type EntitlementViewer, type PledgeRecord } from "./entitlement";
import { memberWithNothing } from "./entitlement.fixtures";
import { isPostVisible, postHiddenFrom } from "./post-visibility";

const TIERS = ["T1", "T2", "T3", "T9"];
const CODES = ["K1", "K2", "K3"];
const titles = new Map([
  ["T1", "Tier 1"],
  ["T2", "Tier 2"],
  ["T3", "Tier 3"],
]);
const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000);

const postArb: fc.Arbitrary<EntitlementPost> = fc.record({
  id: fc.constantFrom("p1", "p2"),
  enabled: fc.boolean(),
  paidContent: fc.boolean(),
  isKofiOnly: fc.boolean(),
  kofiId: fc.option(fc.constantFrom(...CODES), { nil: null }),
  currentTierIds: fc.uniqueArray(fc.constantFrom(...TIERS), { maxLength: 3 }),
  firstTierIds: fc.uniqueArray(fc.constantFrom(...TIERS), { maxLength: 3 }),
  firstPublishedAt: fc.option(fc.integer({ min: 0, max: 60 }).map(day), { nil: null }),
  publishAt: fc.constant(null),
  releaseSteps: fc.constant([]),
});

const pledgeArb: fc.Arbitrary<PledgeRecord> = fc.record({
  type: fc.constantFrom("pledge_start", "pledge_upgrade", "pledge_downgrade", "pledge_delete"),
  date: fc.integer({ min: 0, max: 60 }).map(day),
  tierId: fc.option(fc.constantFrom(...TIERS), { nil: null }),
  paymentStatus: fc.option(fc.constantFrom("Paid", "paid", "Declined", "Pending"), { nil: null }),
});

const purchaseArb = fc.record({
  code: fc.constantFrom(...CODES),
  email: fc.constantFrom("a@b.c", "x@y.z"),
  purchasedAt: fc.integer({ min: 0, max: 60 }).map(day),
});

const viewerArb: fc.Arbitrary<EntitlementViewer | null> = fc.option(
  fc
    .record({
      isAdmin: fc.boolean(),
      restricted: fc.boolean(),
      currentTierId: fc.option(fc.constantFrom(...TIERS), { nil: null }),
      unlocked: fc.uniqueArray(fc.record({ id: fc.constantFrom("p1", "p2"), source: fc.constantFrom("ADMIN" as const, "SYNC" as const) }), {
        selector: (g) => g.id,
        maxLength: 2,
      }),
      purchases: fc.array(purchaseArb, { maxLength: 3 }),
      unverified: fc.array(purchaseArb, { maxLength: 2 }),
      pledges: fc.array(pledgeArb, { maxLength: 5 }),
      voted: fc.uniqueArray(fc.constantFrom("p1", "p2"), { maxLength: 2 }),
    })
    .map((v) => ({
      isAdmin: v.isAdmin,
      restricted: v.restricted,
      currentTierId: v.currentTierId,
      unlockedPostIds: new Set(v.unlocked.map((g) => g.id)),
      purchasedKofiCodes: new Set(v.purchases.map((p) => p.code)),
      pledges: v.pledges,
      voterPostIds: new Set(v.voted),
      details: {
        purchases: v.purchases,
        unverifiedPurchases: v.unverified,
        grantSources: new Map(v.unlocked.map((g) => [g.id, g.source])),
        tierTitles: titles,
      },
    })),
  { nil: null },
);

/** The documented table, written as a list of candidate rules; the first that holds decides. */
function documentedReason(post: EntitlementPost, viewer: EntitlementViewer | null): string | null {
  if (viewer?.restricted) return null;
  if (viewer?.isAdmin) return "admin";
  if (!post.enabled) return null;
  if (!post.paidContent) return "free";
  if (!viewer) return null;
  const pledgedOnPublish = () => {
    if (!post.firstPublishedAt) return null;
    const before = viewer.pledges.filter((e) => e.date <= post.firstPublishedAt!);
    const latest = before.reduce<PledgeRecord | null>((best, e) => (!best || e.date >= best.date ? e : best), null);
    if (!latest || latest.type === "pledge_delete") return null;
    if (latest.paymentStatus && latest.paymentStatus.toLowerCase() !== "paid") return null;
    return latest.tierId;
  };
  const candidates: [string, boolean][] = [
    ["unlocked-content", viewer.unlockedPostIds.has(post.id)],
    ["current-tier", !post.isKofiOnly && viewer.currentTierId !== null && post.currentTierIds.includes(viewer.currentTierId)],
    ["first-tier", !post.isKofiOnly && post.firstTierIds.length > 0 && post.firstTierIds.includes(pledgedOnPublish() ?? "-")],
    ["purchase", post.kofiId !== null && viewer.purchasedKofiCodes.has(post.kofiId)],
    // Without release steps, a voter's first release is the publication, to the post's own tiers.
    ["voter", viewer.voterPostIds.has(post.id) && !post.isKofiOnly && post.firstPublishedAt !== null && post.currentTierIds.length > 0],
  ];
  return candidates.find(([, holds]) => holds)?.[0] ?? null;
}

describe("explainAccess", () => {
  it("decides exactly as the documented rule, and canDownload is its decision", () => {
    fc.assert(
      fc.property(postArb, viewerArb, (post, viewer) => {
        const explanation = explainAccess(post, viewer);
        expect(explanation.grant?.reason ?? null).toBe(documentedReason(post, viewer));
        expect(explanation.allowed).toBe(explanation.grant !== null);
        expect(canDownload(post, viewer)).toBe(explanation.allowed);
        expect(unlockReason(post, viewer)).toBe(explanation.grant?.reason ?? null);
      }),
      { numRuns: 1000 },
    );
  });

  it("names what decided: the purchase's email, the tier, the near misses", () => {
    fc.assert(
      fc.property(postArb, viewerArb, (post, viewer) => {
        const explanation = explainAccess(post, viewer);
        const words = describeAccess(explanation, titles);
        if (!explanation.allowed) {
          expect(words.summary).toBe("Locked");
          if (viewer?.restricted) expect(words.misses).toContain("Restricted account: nothing can be downloaded");
          // A purchase with a linked but unverified email of this very item is always named.
          const pending = viewer?.details?.unverifiedPurchases.filter((p) => p.code === post.kofiId) ?? [];
          if (!viewer?.restricted && !viewer?.isAdmin && post.enabled && post.paidContent) {
            for (const purchase of pending) expect(words.misses.some((miss) => miss.includes(`with ${purchase.email}, which is linked`))).toBe(true);
          }
          return;
        }
        const grant = explanation.grant!;
        if (grant.reason === "purchase") {
          const bought = viewer!.details!.purchases.filter((p) => p.code === post.kofiId).map((p) => p.email);
          expect(bought.some((email) => words.summary.endsWith(`with shop email ${email}`))).toBe(true);
        }
        if (grant.reason === "current-tier") expect(words.summary).toBe(`Your ${titles.get(viewer!.currentTierId!) ?? "Unknown Tier"} membership`);
        if (grant.reason === "first-tier") expect(post.firstTierIds).toContain(grant.tierId);
      }),
      { numRuns: 1000 },
    );
  });

  it("words for the seven reasons", () => {
    const base: EntitlementPost = {
      id: "p1",
      enabled: true,
      paidContent: true,
      isKofiOnly: false,
      kofiId: "K1",
      currentTierIds: ["T2"],
      firstTierIds: ["T1"],
      firstPublishedAt: new Date("2026-03-03T12:00:00Z"),
      publishAt: null,
      releaseSteps: [],
    };
    const viewer = (over: Partial<EntitlementViewer>): EntitlementViewer =>
      memberWithNothing({
        details: {
          purchases: [{ code: "K1", email: "a@b.c", purchasedAt: new Date("2026-05-12T10:00:00Z") }],
          unverifiedPurchases: [],
          grantSources: new Map([["p1", "ADMIN"]]),
          tierTitles: titles,
        },
        ...over,
      });
    const say = (post: EntitlementPost, v: EntitlementViewer | null) => describeAccess(explainAccess(post, v), titles).summary;
    expect(say({ ...base, paidContent: false }, null)).toBe("Free");
    expect(say(base, viewer({ currentTierId: "T2" }))).toBe("Your Tier 2 membership");
    expect(say(base, viewer({ pledges: [{ type: "pledge_start", date: new Date("2026-02-01T00:00:00Z"), tierId: "T1", paymentStatus: "Paid" }] }))).toBe(
      "Early supporter: you were on Tier 1 when this was published on 3 Mar 2026",
    );
    expect(say(base, viewer({ purchasedKofiCodes: new Set(["K1"]) }))).toBe("Bought on 12 May 2026 with shop email a@b.c");
    expect(say(base, viewer({ unlockedPostIds: new Set(["p1"]) }))).toBe("Granted by the creator");
    expect(say(base, viewer({ isAdmin: true }))).toBe("Admin");
    expect(say(base, viewer({ voterPostIds: new Set(["p1"]) }))).toBe("You voted for the idea this post realizes: released to its voters on 3 Mar 2026");
    const near = describeAccess(
      explainAccess(
        base,
        viewer({
          currentTierId: "T1",
          details: {
            purchases: [],
            unverifiedPurchases: [{ code: "K1", email: "x@y.z", purchasedAt: new Date("2026-05-12T00:00:00Z") }],
            grantSources: new Map(),
            tierTitles: titles,
          },
          pledges: [{ type: "pledge_start", date: new Date("2026-01-01T00:00:00Z"), tierId: "T2", paymentStatus: "Paid" }],
        }),
      ),
      titles,
    );
    expect(near.misses).toEqual([
      "Current tier Tier 1; this post needs Tier 2",
      "Pledged Tier 2 on the publish date (3 Mar 2026); this post's early supporters needed Tier 1",
      "Bought on 12 May 2026 with x@y.z, which is linked to this account but not verified",
    ]);
  });
});

describe("the post-visibility rule comes first (docs/security-model.md#who-sees-a-post)", () => {
  const datedPostArb = fc
    .tuple(postArb, fc.option(fc.integer({ min: 0, max: 60 }).map(day), { nil: null }))
    .map(([post, publishAt]) => ({ ...post, publishAt }));
  const nowArb = fc.integer({ min: 0, max: 60 }).map(day);

  it("a post the viewer may not see is never unlocked nor promised, and the rule's own reason says why", () => {
    fc.assert(
      fc.property(datedPostArb, viewerArb, nowArb, (post, viewer, now) => {
        const explanation = explainAccess(post, viewer, now);
        if (explanation.allowed) expect(isPostVisible(post, viewer, now)).toBe(true);
        if (viewer?.restricted) return;
        const hidden = postHiddenFrom(post, viewer, now);
        expect(explanation.misses.filter((miss) => miss.kind === "disabled" || miss.kind === "scheduled")).toEqual(hidden ? [hidden] : []);
        if (hidden) expect(explanation).toMatchObject({ allowed: false, upcoming: null });
      }),
    );
  });
});
