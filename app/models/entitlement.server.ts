// Loads what the entitlement rule needs about a viewer with a fixed number of queries (never one
// per post), and answers the rule for posts loaded with their tiers.
import { db } from "~/db.server";
import type { Post, PostTier, User } from "~/generated/prisma/client";
import { canDownload, type EntitlementPost, type EntitlementViewer } from "~/utils/entitlement";

export type PostWithTiers = Post & { tiers: Pick<PostTier, "tierId" | "kind">[] };

type ViewerUser = Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId">;

export async function loadEntitlementViewer(user: ViewerUser | null): Promise<EntitlementViewer | null> {
  if (!user) return null;
  const [unlocked, purchases, pledges] = await Promise.all([
    db.unlockedContent.findMany({ where: { userId: user.id }, select: { postId: true } }),
    // Purchases made with any verified shop email of this user, guest purchases included.
    db.$queryRaw<{ kofi_item_code: string }[]>`
      SELECT DISTINCT p.kofi_item_code FROM purchases p
      JOIN shop_emails s ON s.verified_email = p.email
      WHERE s.user_id = ${user.id}`,
    db.pledgeEvent.findMany({
      where: { userId: user.id },
      select: { type: true, date: true, tierId: true, paymentStatus: true },
    }),
  ]);
  return {
    isAdmin: user.isAdmin,
    restricted: user.restricted,
    currentTierId: user.currentTierId,
    unlockedPostIds: new Set(unlocked.map((row) => row.postId)),
    purchasedKofiCodes: new Set(purchases.map((row) => row.kofi_item_code)),
    pledges,
  };
}

export function toEntitlementPost(post: PostWithTiers): EntitlementPost {
  return {
    id: post.id,
    enabled: post.enabled,
    paidContent: post.paidContent,
    isKofiOnly: post.isKofiOnly,
    kofiId: post.kofiId,
    currentTierIds: post.tiers.filter((tier) => tier.kind === "CURRENT").map((tier) => tier.tierId),
    firstTierIds: post.tiers.filter((tier) => tier.kind === "FIRST").map((tier) => tier.tierId),
    firstPublishedAt: post.firstPublishedAt,
  };
}

export function isUnlocked(post: PostWithTiers, viewer: EntitlementViewer | null): boolean {
  return canDownload(toEntitlementPost(post), viewer);
}
