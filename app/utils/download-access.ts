// What a download is recorded as, in the words of the insights (docs/product.md#insights): the
// entitlement's unlock reason at download time. A post in the user's unlocked content came from
// an admin grant or from the sync job's early-supporter unlock; `unlockSource` tells which.
import type { DownloadAccess, UnlockSource } from "~/generated/prisma/enums";
import type { UnlockReason } from "~/utils/entitlement";

export function downloadAccessFor(reason: UnlockReason | null, unlockSource: UnlockSource | null): DownloadAccess {
  switch (reason) {
    case "free":
      return "FREE";
    case "admin":
      return "ADMIN";
    case "current-tier":
      return "TIER";
    case "release":
      return "TIER";
    case "first-tier":
      return "EARLY_SUPPORTER";
    case "purchase":
      return "PURCHASE";
    // The creator chose to give the idea's voters access when linking it: a grant.
    case "voter":
      return "GRANT";
    case "unlocked-content":
      return unlockSource === "SYNC" ? "EARLY_SUPPORTER" : unlockSource ? "GRANT" : "UNKNOWN";
    default:
      return "UNKNOWN";
  }
}
