// Entitlement rule 5 written down: a post stays unlocked for the supporters who were actively
// pledged, at one of its first tiers, when it was first published ("early supporters keep what
// they were there for"). The sync job stores these as unlocked_content rows with source SYNC;
// rows granted by an admin are never touched here.
import { db, Prisma } from "~/db.server";
import { recordAudit } from "~/models/audit.server";
import { pledgedTierAt } from "~/utils/entitlement";

type Client = Prisma.TransactionClient | typeof db;

/** Post ids rule 5 grants the user. */
export async function earlySupporterPostIds(userId: string, client: Client = db): Promise<string[]> {
  const history = await client.pledgeEvent.findMany({
    where: { userId },
    select: { type: true, date: true, tierId: true, paymentStatus: true },
    orderBy: { date: "asc" },
  });
  if (history.length === 0) return [];
  const posts = await client.post.findMany({
    where: { paidContent: true, isKofiOnly: false, firstPublishedAt: { not: null }, tiers: { some: { kind: "FIRST" } } },
    select: { id: true, firstPublishedAt: true, tiers: { where: { kind: "FIRST" }, select: { tierId: true } } },
  });
  return posts
    .filter((post) => {
      // The live check's own reading of the history, so a SYNC row grants exactly what it would.
      const tier = pledgedTierAt(history, post.firstPublishedAt!);
      return tier !== null && post.tiers.some((first) => first.tierId === tier);
    })
    .map((post) => post.id);
}

export type UnlockRecompute = { userId: string; added: number; removed: number; total: number };

/** Makes the user's SYNC unlocks exactly what rule 5 grants now. */
export async function recomputeUnlocks(userId: string, client: Client = db): Promise<UnlockRecompute> {
  const granted = await earlySupporterPostIds(userId, client);
  const removed = await client.unlockedContent.deleteMany({
    where: { userId, source: "SYNC", postId: { notIn: granted } },
  });
  // An admin grant of the same post stays as it is (skipDuplicates keeps its source).
  const added = await client.unlockedContent.createMany({
    data: granted.map((postId) => ({ userId, postId, source: "SYNC" as const })),
    skipDuplicates: true,
  });
  return { userId, added: added.count, removed: removed.count, total: granted.length };
}

/** The admin's "unlock objects" for one user, audited; null when the user does not exist. */
export async function recomputeUnlocksForUser(actorId: string | null, userId: string): Promise<UnlockRecompute | null> {
  return db.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true } });
    if (!user) return null;
    const result = await recomputeUnlocks(userId, tx);
    await recordAudit({ actorId, action: "unlocks.recompute", targetType: "user", targetId: userId, after: result }, tx);
    return result;
  });
}
