// Game patches and compatibility (docs/product.md#game-patches): the one schema per rule shared by
// the admin page, the post page's forms and the /api routes, and the words every surface shows.
// Messages are docs/messages.md's, word for word.
import { z } from "zod";
import { blankAsAbsent, checkbox } from "~/utils/form-fields";

// The words and marks every surface shows live in a zod-free module, for the browser's pages.
export { PATCH_MESSAGES, patchBanner, patchNewsHeadline, type PatchMarkName, type PlayerVerdictName, type PostCompatibility } from "~/utils/game-patch-words";
import { PATCH_MESSAGES } from "~/utils/game-patch-messages";
import { PATCH_MARKS, PLAYER_VERDICTS } from "~/utils/game-patch-words";

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

// The forms' variants: a field left blank is absent (the current patch, the newest version).
export const patchCreateFormSchema = blankAsAbsent(patchCreateSchema.extend({ current: checkbox }));
export const patchMarkFormSchema = blankAsAbsent(patchMarkSchema);
export const patchAcceptFormSchema = blankAsAbsent(patchAcceptSchema);
export const patchVoteFormSchema = blankAsAbsent(patchVoteSchema);
