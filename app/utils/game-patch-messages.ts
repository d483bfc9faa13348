// Game patches' messages (docs/messages.md, word for word), re-exported by game-patch-words.ts and
// game-patch-schemas.ts; apart so that the library page's script, which shows only the patch lines
// of game-patch-words.ts, does not carry them.

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
