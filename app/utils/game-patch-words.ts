// Game patches as every surface words them (docs/product.md#game-patches, docs/messages.md word for
// word): plain values without zod, for the browser's pages; the schemas are in game-patch-schemas.ts.

export const PATCH_MESSAGES = {
  nameRequired: "Please enter the patch's name, such as 1.113.",
  nameInvalid: "A patch's name is at most 40 letters, digits, spaces, dots, dashes or underscores.",
  nameTaken: "A patch with this name already exists.",
  patchNotFound: "Game patch not found.",
  noCurrentPatch: "No game patch is current yet.",
  markInvalid: "Choose works, broken or untested.",
  verdictInvalid: "Choose works or broken.",
  versionNotFound: "Version not found.",
  notDownloaded: "Only accounts that downloaded this post can confirm whether it works on a patch.",
  versionNotDownloaded: "You can only confirm a version you downloaded.",
  nothingToAccept: "There are no player confirmations to accept for this version on this patch.",
  splitVotes: "Players are split evenly on this version: set its mark yourself.",
  failed: "Could not update the game compatibility.",
  loadFailed: "Could not load the game patches.",
  added: "Game patch added.",
  declared: "The current game patch is changed.",
  markSaved: "Compatibility mark saved.",
  voteSaved: "Thank you: your answer is saved.",
  accepted: "The players' answer is now the version's mark.",
} as const;

export const PATCH_MARKS = ["works", "broken", "untested"] as const;
export type PatchMarkName = (typeof PATCH_MARKS)[number];
export const PLAYER_VERDICTS = ["works", "broken"] as const;
export type PlayerVerdictName = (typeof PLAYER_VERDICTS)[number];

/** A post's standing on the current patch, as cards and the post page show it. */
export type PostCompatibility = { patch: string; mark: PatchMarkName };

/** The line a card shows: "Works on 1.113", "Broken on 1.113" or "Not yet confirmed for 1.113". */
export function compatibilityLine(compatibility: PostCompatibility): string {
  if (compatibility.mark === "works") return `Works on ${compatibility.patch}`;
  if (compatibility.mark === "broken") return `Broken on ${compatibility.patch}`;
  return `Not yet confirmed for ${compatibility.patch}`;
}

/** The library's patch-day banner: "12 of 30 posts confirmed for 1.113". */
export function patchBanner(confirmed: number, total: number, patch: string): string {
  return `${confirmed} of ${total} ${total === 1 ? "post" : "posts"} confirmed for ${patch}`;
}

/** How the feed and the digests announce a "works" mark: "Confirmed for 1.113" or "Fixed for 1.113 in V2.2". */
export function patchNewsHeadline({ patch, label, fixed }: { patch: string; label: string; fixed: boolean }): string {
  return fixed ? `Fixed for ${patch} in ${label}` : `Confirmed for ${patch}`;
}
