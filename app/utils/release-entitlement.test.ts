// The time dimension of the entitlement rule (docs/product.md#releases): scheduled publication and
// release steps. Later instants only ever widen access, nothing changes between a post's release
// instants, and the words name the step that opened a post or will.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeAccess, timeUntil, timeUntilTurnsAt } from "./access-words";
import { canDownload, explainAccess, nextReleaseChange, tierIdsAt, type EntitlementPost, type EntitlementViewer } from "./entitlement";
import { memberWithNothing } from "./entitlement.fixtures";

const DAY = 86_400_000;
const start = Date.UTC(2026, 11, 1, 18);
const at = (days: number) => new Date(start + days * DAY);
const titles = new Map([
  ["T1", "Tier 1"],
  ["T2", "Tier 2"],
  ["T3", "Tier 3"],
]);

/** Tier 3 at publishing, Tier 2 (and 3) after 7 days, Tier 1 (and up) after 14, everyone after 60. */
function cascade(overrides: Partial<EntitlementPost> = {}): EntitlementPost {
  return {
    id: "p1",
    enabled: true,
    paidContent: true,
    isKofiOnly: false,
    kofiId: null,
    currentTierIds: [],
    firstTierIds: [],
    firstPublishedAt: at(0),
    publishAt: at(0),
    releaseSteps: [
      { tierIds: ["T3"], opensAt: at(0) },
      { tierIds: ["T2", "T3"], opensAt: at(7) },
      { tierIds: ["T1", "T2", "T3"], opensAt: at(14) },
      { tierIds: null, opensAt: at(60) },
    ],
    ...overrides,
  };
}

const onTier = (tierId: string | null) => memberWithNothing({ currentTierId: tierId });

describe("a release cascade over time", () => {
  it("opens to each tier at its step, and to everyone at the last", () => {
    const post = cascade();
    const who = { guest: null, t1: onTier("T1"), t2: onTier("T2"), t3: onTier("T3") };
    const open = (days: number) =>
      Object.entries(who)
        .filter(([, viewer]) => canDownload(post, viewer, at(days)))
        .map(([name]) => name);
    expect(open(-1)).toEqual([]);
    expect(open(0)).toEqual(["t3"]);
    expect(open(6.9)).toEqual(["t3"]);
    expect(open(7)).toEqual(["t2", "t3"]);
    expect(open(14)).toEqual(["t1", "t2", "t3"]);
    expect(open(60)).toEqual(["guest", "t1", "t2", "t3"]);
  });

  it("keeps a scheduled post from everyone but admins until its publication", () => {
    const post = cascade({ publishAt: at(2), releaseSteps: [{ tierIds: null, opensAt: at(0) }] });
    expect(canDownload(post, null, at(1))).toBe(false);
    expect(explainAccess(post, onTier("T3"), at(1)).misses).toEqual([{ kind: "scheduled", publishAt: at(2) }]);
    expect(canDownload(post, memberWithNothing({ isAdmin: true }), at(1))).toBe(true);
    expect(canDownload(post, null, at(2))).toBe(true);
  });

  it("names the step that unlocked the post", () => {
    const words = describeAccess(explainAccess(cascade(), onTier("T2"), at(8)), titles, at(8));
    expect(words.summary).toBe("Released to Tier 2 on 8 Dec 2026");
    const everyone = describeAccess(explainAccess(cascade(), null, at(61)), titles, at(61));
    expect(everyone.summary).toBe("Released to everyone on 30 Jan 2027");
  });

  it("tells a locked viewer when their turn comes, and a guest when it becomes free", () => {
    const member = describeAccess(explainAccess(cascade(), onTier("T2"), at(2)), titles, at(2));
    expect(member.upcoming).toBe("Opens to your Tier 2 on 8 Dec 2026 (in 5 days)");
    expect(member.unlockTierIds).toEqual(["T3"]);
    const guest = describeAccess(explainAccess(cascade(), null, at(2)), titles, at(2));
    expect(guest.upcoming).toBe("Free for everyone on 30 Jan 2027 (in 58 days)");
    const never = describeAccess(explainAccess(cascade({ releaseSteps: [{ tierIds: ["T3"], opensAt: at(0) }] }), null, at(2)), titles, at(2));
    expect(never.upcoming).toBeNull();
  });

  it("reports the post's tiers as what the cascade has reached", () => {
    expect(tierIdsAt(cascade({ currentTierIds: ["T9"] }), at(7))).toEqual(["T9", "T3", "T2"]);
  });
});

// Properties over random posts, viewers and instants.
const TIERS = ["T1", "T2", "T3"];
const dayArb = fc.integer({ min: -5, max: 70 });
const postArb: fc.Arbitrary<EntitlementPost> = fc.record({
  id: fc.constant("p1"),
  enabled: fc.boolean(),
  paidContent: fc.boolean(),
  isKofiOnly: fc.boolean(),
  kofiId: fc.option(fc.constant("K1"), { nil: null }),
  currentTierIds: fc.uniqueArray(fc.constantFrom(...TIERS), { maxLength: 2 }),
  firstTierIds: fc.uniqueArray(fc.constantFrom(...TIERS), { maxLength: 2 }),
  firstPublishedAt: fc.option(fc.constant(at(0)), { nil: null }),
  publishAt: fc.option(dayArb.map(at), { nil: null }),
  releaseSteps: fc.array(
    fc.record({ tierIds: fc.option(fc.uniqueArray(fc.constantFrom(...TIERS), { minLength: 1 }), { nil: null }), opensAt: dayArb.map(at) }),
    { maxLength: 4 },
  ),
});
const viewerArb: fc.Arbitrary<EntitlementViewer | null> = fc.option(
  fc.record({
    isAdmin: fc.boolean(),
    restricted: fc.boolean(),
    currentTierId: fc.option(fc.constantFrom(...TIERS), { nil: null }),
    unlockedPostIds: fc.constantFrom(new Set<string>(), new Set(["p1"])),
    purchasedKofiCodes: fc.constantFrom(new Set<string>(), new Set(["K1"])),
    pledges: fc.constant([]),
    voterPostIds: fc.constantFrom(new Set<string>(), new Set(["p1"])),
  }),
  { nil: null },
);

describe("voter access", () => {
  const voter = memberWithNothing({ voterPostIds: new Set(["p1"]) });

  it("opens the post to a voter on no tier with its first step, and says so before and after", () => {
    const post = cascade({ releaseSteps: [{ tierIds: ["T3"], opensAt: at(3) }, ...cascade().releaseSteps.slice(1)] });
    const before = explainAccess(post, voter, at(1));
    expect(before.allowed).toBe(false);
    expect(describeAccess(before, titles, at(1)).upcoming).toBe("Opens to you as a voter on 4 Dec 2026 (in 2 days)");
    const after = explainAccess(post, voter, at(3));
    expect(after.grant).toEqual({ reason: "voter", opensAt: at(3) });
    expect(describeAccess(after, titles, at(3)).summary).toBe("You voted for the idea this post realizes: released to its voters on 4 Dec 2026");
    // Someone who did not vote, on the same (no) tier, stays locked.
    expect(canDownload(post, memberWithNothing(), at(3))).toBe(false);
  });

  it("names a voter's own tier or purchase first, and gives nothing for a shop-only post or a first step to everyone", () => {
    expect(explainAccess(cascade(), { ...voter, currentTierId: "T3" }, at(1)).grant?.reason).toBe("release");
    expect(canDownload(cascade({ isKofiOnly: true, kofiId: "K1" }), voter, at(1))).toBe(false);
    const everyoneFirst = cascade({ releaseSteps: [{ tierIds: null, opensAt: at(5) }] });
    expect(canDownload(everyoneFirst, voter, at(1))).toBe(false);
    expect(explainAccess(everyoneFirst, voter, at(1)).upcoming).toEqual({ tierId: null, opensAt: at(5) });
    // Without steps, the first release is the publication, to the post's own tiers.
    const plain = cascade({ releaseSteps: [], currentTierIds: ["T3"], publishAt: null });
    expect(explainAccess(plain, voter, at(1)).grant).toEqual({ reason: "voter", opensAt: at(0) });
    expect(canDownload(cascade({ releaseSteps: [], currentTierIds: [] }), voter, at(1))).toBe(false);
  });
});

describe("the rule in time: properties", () => {
  it("never takes back at a later instant what it allowed at an earlier one", () => {
    fc.assert(
      fc.property(postArb, viewerArb, dayArb, dayArb, (post, viewer, a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        if (canDownload(post, viewer, at(early))) expect(canDownload(post, viewer, at(late))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("answers the same at every instant before the post's next release change", () => {
    fc.assert(
      fc.property(postArb, viewerArb, dayArb, fc.double({ min: 0, max: 1, noNaN: true }), (post, viewer, day, fraction) => {
        const now = at(day);
        const next = nextReleaseChange(post, now) ?? now.getTime() + 100 * DAY;
        const between = new Date(now.getTime() + Math.floor((next - now.getTime()) * fraction * 0.999));
        expect(canDownload(post, viewer, between)).toBe(canDownload(post, viewer, now));
        expect(tierIdsAt(post, between).sort()).toEqual(tierIdsAt(post, now).sort());
      }),
      { numRuns: 3000 },
    );
  });

  it("promises only a step that does open the post to that viewer when it comes", () => {
    fc.assert(
      fc.property(postArb, viewerArb, dayArb, (post, viewer, day) => {
        const explanation = explainAccess(post, viewer, at(day));
        if (!explanation.upcoming) return;
        expect(explanation.allowed).toBe(false);
        expect(canDownload(post, viewer, explanation.upcoming.opensAt)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("timeUntil", () => {
  it("says minutes within the hour, hours within the day, then whole days", () => {
    const now = new Date(start);
    const later = (ms: number) => new Date(start + ms);
    expect(timeUntil(later(30_000), now)).toBe("in 1 minute");
    expect(timeUntil(later(59 * 60_000), now)).toBe("in 59 minutes");
    expect(timeUntil(later(5 * 3_600_000), now)).toBe("in 5 hours");
    expect(timeUntil(later(2 * DAY - 60_000), now)).toBe("in 2 days");
    expect(timeUntil(later(DAY + 3_600_000), now)).toBe("in 1 day");
  });

  it("names the instant its words turn: the same words until then, others from then", () => {
    let seed = 11;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let run = 0; run < 2_000; run++) {
      const now = new Date(start + Math.floor(random() * 60_000));
      const at = new Date(now.getTime() + 1 + Math.floor(random() ** 3 * 9 * DAY));
      const words = timeUntil(at, now);
      const turn = timeUntilTurnsAt(at, now);
      if (turn === null) {
        expect(words).toBe("in 1 minute");
        continue;
      }
      expect(turn).toBeGreaterThan(now.getTime());
      const before = now.getTime() + Math.floor(random() * (turn - now.getTime()));
      expect(timeUntil(at, new Date(before))).toBe(words);
      expect(timeUntil(at, new Date(turn - 1))).toBe(words);
      expect(timeUntil(at, new Date(turn))).not.toBe(words);
    }
  });
});
