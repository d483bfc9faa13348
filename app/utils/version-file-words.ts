// The files of a version (docs/product.md#files-of-a-version): their roles and messages as the
// browser shows them. Zod-free, so the post page's bundle does not load zod for its words.

/** What a file of a version is for; `main` is the version's own file. */
export const FILE_ROLES = ["main", "variant", "optional", "translation"] as const;
export type FileRoleName = (typeof FILE_ROLES)[number];

/** The roles an admin adds to a version beside its main file. */
export const ADDED_FILE_ROLES = ["variant", "optional", "translation"] as const satisfies readonly FileRoleName[];

/** Headings of each role's files on the post page and card, in this order. */
export const FILE_ROLE_HEADINGS: Record<FileRoleName, string> = {
  main: "Main file",
  variant: "Variants (pick one)",
  optional: "Optional add-ons",
  translation: "Translations",
};

/** A role's name in the admin's choice. */
export const FILE_ROLE_NAMES: Record<FileRoleName, string> = {
  main: "Main file",
  variant: "Variant",
  optional: "Optional add-on",
  translation: "Translation",
};

export const VERSION_FILE_MESSAGES = {
  fileAdded: "File added to the version.",
  fileUpdated: "File updated.",
  fileRemoved: "File removed from the version.",
  removeFailed: "Failed to remove the file.",
  fileFailed: "Failed to add the file.",
  fileNotFound: "This file does not exist or is no longer available.",
  labelRequired: "Variants and translations need a label, such as “Maxis Match” or “Deutsch”.",
  labelTooLong: "The file label must be at most 60 characters.",
  roleInvalid: "Choose the file's role: variant, optional add-on or translation.",
  unknownTier: "The gate names a tier that does not exist.",
  shopItemTooLong: "The shop item code must be at most 64 characters.",
} as const;
