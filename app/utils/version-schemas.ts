// Post versions: the words and the one schema of each rule, shared by the admin card's
// forms, the library action and /api/upload/file/{id}.
import { z } from "zod";
import { text } from "~/utils/form-fields";

/**
 * The most entries (files and folders) a post file's ZIP may list: each costs storage reads at
 * upload, and the list is stored with the version and compared with the one before.
 */
export const MAX_ZIP_ENTRIES = 10_000;

export const VERSION_MESSAGES = {
  unreadableZip: "This ZIP archive is corrupt or truncated, so it was not stored. Check the file and upload it again.",
  tooManyZipEntries: `This ZIP archive has more than ${MAX_ZIP_ENTRIES.toLocaleString("en-US")} entries (files and folders), the most a post file may have, so it was not stored. Pack it with fewer entries and upload it again.`,
  versionNotFound: "This version of the post does not exist or is no longer available.",
  cannotHideCurrent: "The current version cannot be hidden. Make another version current first.",
  cannotMakeHiddenCurrent: "A hidden version cannot be made current. Show it first.",
  alreadyCurrent: "This version is already the current one.",
  labelTooLong: "The version label must be at most 40 characters.",
  notesTooLong: "The notes must be at most 20,000 characters.",
  versionHidden: "Version hidden.",
  versionShown: "Version shown again.",
  versionMadeCurrent: "Version made current.",
  versionFailed: "Failed to update the version.",
} as const;

/** The label and notes of an upload: both optional (an absent label keeps the post's version). */
export const versionUploadSchema = z.object({
  label: z
    .string()
    .trim()
    .max(40, VERSION_MESSAGES.labelTooLong)
    .optional()
    .transform((label) => label || undefined),
  notes: z
    .string()
    .max(20_000, VERSION_MESSAGES.notesTooLong)
    .optional()
    .transform((notes) => notes?.replace(/\r\n/g, "\n").trim() ?? ""),
});
export type VersionUploadInput = z.infer<typeof versionUploadSchema>;

/** The post editor's upload form: its label and notes as typed, sent on to POST /api/uploads (which checks them with versionUploadSchema). */
export const versionUploadFormSchema = z.object({ label: text, notes: text });

/** Starting a resumable upload: the post, the file's name and size, and the version's label and notes. */
export const uploadSessionSchema = z
  .object({
    postId: z.string().trim().min(1, "Choose a post.").max(64),
    fileName: z.string().trim().min(1, "Please select a file first.").max(255, "The file name must be at most 255 characters."),
    size: z
      .number({ invalid_type_error: "The file size must be a whole number of bytes." })
      .int("The file size must be a whole number of bytes.")
      .min(1, "Please select a file first."),
  })
  .and(versionUploadSchema);
export type UploadSessionInput = z.infer<typeof uploadSessionSchema>;

/** The multipart text fields an upload may carry before its file. */
export const VERSION_UPLOAD_FIELDS = ["label", "notes"] as const;

/** Hide, show again or make current: which version of which post. */
export const versionActionSchema = z.object({
  postId: z.string().min(1).max(64),
  versionId: z.string().min(1).max(64),
});

/** A suggested label for the next upload: the last number of the current one, plus one (V1.0 -> V1.1). */
export function nextVersionLabel(current: string): string {
  const match = /(\d+)(\D*)$/.exec(current);
  if (!match) return current;
  return `${current.slice(0, match.index)}${Number(match[1]) + 1}${match[2]}`;
}
