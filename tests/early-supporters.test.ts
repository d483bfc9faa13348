// Rule 5 (early supporters keep what they were there for) read the same way by the members
// sync, which writes SYNC unlocks, and by the live check of a download: only a pledge whose
// payment status is Paid (or empty) counts, so a Pending charge unlocks neither.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { loadEntitlementViewer, toEntitlementPost } from "~/models/entitlement.server";
import { withAccess } from "~/models/library-listing.server";
import { recomputeUnlocks } from "~/models/unlocks.server";
import { canDownload } from "~/utils/entitlement";
import { createTestUser } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_3 } from "./library-fixtures";

const DAY = 86_400_000;

async function earlySupporter(paymentStatus: string | null) {
  await createTiers();
  const published = new Date(Date.now() - 60 * DAY);
  // Today the post is for Tier 3 only; when it came out it was for Tier 1 too.
  const post = await createPost({ tiers: [TIER_3], firstTiers: [TIER_1], firstPublishedAt: published });
  const user = await createTestUser({ currentTierId: null });
  await db.pledgeEvent.create({
    data: {
      id: `pledge_start:${user.id}`,
      userId: user.id,
      type: "pledge_start",
      amountCents: 300,
      date: new Date(published.getTime() - DAY),
      tierId: TIER_1,
      paymentStatus,
    },
  });
  await db.pledgeEvent.create({
    data: {
      id: `pledge_delete:${user.id}`,
      userId: user.id,
      type: "pledge_delete",
      amountCents: 0,
      date: new Date(published.getTime() + 10 * DAY),
      tierId: TIER_1,
      paymentStatus: null,
    },
  });
  return { post, user };
}

async function liveCheck(postId: string, userId: string): Promise<boolean> {
  const post = await db.post.findUniqueOrThrow({ where: { id: postId }, include: withAccess });
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  return canDownload(toEntitlementPost(post), await loadEntitlementViewer(user));
}

describe("rule 5, early supporters", () => {
  it("a Paid pledge at first publication unlocks the post, live and through the sync's row", async () => {
    const { post, user } = await earlySupporter("Paid");
    expect(await liveCheck(post.id, user.id)).toBe(true);
    const result = await recomputeUnlocks(user.id);
    expect(result.added).toBe(1);
    expect(await db.unlockedContent.findMany({ where: { userId: user.id }, select: { postId: true, source: true } })).toEqual([
      { postId: post.id, source: "SYNC" },
    ]);
  });

  it("a Pending charge at first publication unlocks nothing, neither live nor by the sync", async () => {
    const { post, user } = await earlySupporter("Pending");
    expect(await liveCheck(post.id, user.id)).toBe(false);
    const result = await recomputeUnlocks(user.id);
    expect(result.added).toBe(0);
    expect(await db.unlockedContent.count({ where: { userId: user.id } })).toBe(0);
    expect(await liveCheck(post.id, user.id)).toBe(false);
  });
});
