// A file added to a version beside its main one: its role, label and own gate. The one schema the
// post page's admin form, the library action and /api/admin/versions/{id}/files share.
import { z } from "zod";
import { ADDED_FILE_ROLES, VERSION_FILE_MESSAGES } from "~/utils/version-file-words";

export const versionFileSchema = z
  .object({
    role: z.enum(ADDED_FILE_ROLES, { errorMap: () => ({ message: VERSION_FILE_MESSAGES.roleInvalid }) }),
    label: z.string().trim().max(60, VERSION_FILE_MESSAGES.labelTooLong).default(""),
    /** Tier ids of the file's own gate; none (and no shop item): the post's gate. */
    gateTierIds: z.array(z.string().trim().min(1).max(64)).max(50).default([]),
    gateShopItem: z
      .string()
      .trim()
      .max(64, VERSION_FILE_MESSAGES.shopItemTooLong)
      .optional()
      .nullable()
      .transform((code) => code || null),
  })
  .refine((file) => file.role === "optional" || file.label.length > 0, { message: VERSION_FILE_MESSAGES.labelRequired, path: ["label"] });
export type VersionFileInput = z.infer<typeof versionFileSchema>;

/** The multipart text fields an added file may carry before its bytes. */
export const VERSION_FILE_FIELDS = ["role", "label", "gateTierIds", "gateShopItem"] as const;

/** Multipart text fields to the schema's input: `gateTierIds` is comma-separated there. */
export function versionFileFieldsToInput(fields: Record<string, string>): unknown {
  return {
    role: fields.role,
    label: fields.label ?? "",
    gateTierIds: (fields.gateTierIds ?? "")
      .split(",")
      .map((id) => id.trim())
      .filter(Boolean),
    gateShopItem: fields.gateShopItem ?? null,
  };
}
