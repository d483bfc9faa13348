// What a download is recorded as: the entitlement's unlock reason at download time, in the words
// of the insights (docs/product.md#insights). A post in the user's unlocked content came from an
// admin grant or from the sync job's early-supporter unlock; the row's source tells which.
import { db } from "~/db.server";
import type { DownloadAccess } from "~/generated/prisma/enums";
import type { UnlockReason } from "~/utils/entitlement";

export async function accessSourceOf(reason: UnlockReason | null, userId: string, postId: string): Promise<DownloadAccess> {
  switch (reason) {
    case "free":
      return "FREE";
    case "admin":
      return "ADMIN";
    case "current-tier":
      return "TIER";
    case "first-tier":
      return "EARLY_SUPPORTER";
    case "purchase":
      return "PURCHASE";
    case "unlocked-content": {
      const unlock = await db.unlockedContent.findUnique({ where: { userId_postId: { userId, postId } }, select: { source: true } });
      return unlock?.source === "SYNC" ? "EARLY_SUPPORTER" : unlock ? "GRANT" : "UNKNOWN";
    }
    default:
      return "UNKNOWN";
  }
}
