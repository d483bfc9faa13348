// What a download is recorded as (app/utils/download-access.ts), with the source of an unlocked
// post read from the user's unlocked content.
import { db } from "~/db.server";
import type { DownloadAccess } from "~/generated/prisma/enums";
import { downloadAccessFor } from "~/utils/download-access";
import type { UnlockReason } from "~/utils/entitlement";

export async function accessSourceOf(reason: UnlockReason | null, userId: string, postId: string): Promise<DownloadAccess> {
  if (reason !== "unlocked-content") return downloadAccessFor(reason, null);
  const unlock = await db.unlockedContent.findUnique({ where: { userId_postId: { userId, postId } }, select: { source: true } });
  return downloadAccessFor(reason, unlock?.source ?? null);
}
