// Game patches and compatibility (docs/product.md#game-patches): the one schema per rule shared by
// the admin page, the post page's forms and the /api routes, and the words every surface shows.
// Messages are docs/messages.md's, word for word.
import { z } from "zod";
import { formFlag, formText } from "~/utils/form-fields";

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

const id = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, PATCH_MESSAGES.patchNotFound);

/** A new patch: its name and whether it becomes the current one at once (patch day). */
export const patchCreateSchema = z.object({
  name: z
    .string({ required_error: PATCH_MESSAGES.nameRequired, invalid_type_error: PATCH_MESSAGES.nameRequired })
    .trim()
    .min(1, PATCH_MESSAGES.nameRequired)
    .max(40, PATCH_MESSAGES.nameInvalid)
    .regex(/^[A-Za-z0-9 ._-]+$/, PATCH_MESSAGES.nameInvalid),
  current: z.boolean().default(false),
});
export type PatchCreateInput = z.infer<typeof patchCreateSchema>;

/** Declaring which named patch is current. */
export const patchDeclareSchema = z.object({ patchId: id });

/** The admin's mark of one version on one patch (absent patch: the current one). */
export const patchMarkSchema = z.object({
  versionId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, PATCH_MESSAGES.versionNotFound),
  patchId: id.optional(),
  mark: z.enum(PATCH_MARKS, { errorMap: () => ({ message: PATCH_MESSAGES.markInvalid }) }),
});
export type PatchMarkInput = z.infer<typeof patchMarkSchema>;

/** Accepting the players' answer as a version's mark (absent patch: the current one). */
export const patchAcceptSchema = patchMarkSchema.omit({ mark: true });
export type PatchAcceptInput = z.infer<typeof patchAcceptSchema>;

/** A downloader's answer; absent version: the newest one they downloaded; absent patch: the current one. */
export const patchVoteSchema = z.object({
  versionId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, PATCH_MESSAGES.versionNotFound)
    .optional(),
  patchId: id.optional(),
  verdict: z.enum(PLAYER_VERDICTS, { errorMap: () => ({ message: PATCH_MESSAGES.verdictInvalid }) }),
});
export type PatchVoteInput = z.infer<typeof patchVoteSchema>;

/** A form's fields as the object the schemas take ("" is absent). */
export function patchFormToInput(form: FormData, names: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of names) {
    const value = formText(form, name);
    if (value.trim() !== "") input[name] = value;
  }
  if (names.includes("current")) input.current = formFlag(form, "current", "on") || formFlag(form, "current");
  return input;
}

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
