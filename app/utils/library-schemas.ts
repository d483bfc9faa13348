// Validation for the library (docs/product.md#library-library, docs/api.md#library), shared by the page's forms, its
// actions and the /api routes. Messages are docs/messages.md's, word for word.
import { z } from "zod";
import { blenderExtensionSchema } from "~/utils/blender-manifest";
import { optionalPublishAtSchema } from "~/utils/release-schemas";
import { formFlag, formOptionalText, formTexts } from "~/utils/form-fields";

export const LIBRARY_MESSAGES = {
  fetchFailed: "Failed to fetch data. Please try again later.",
  loadPostsFailed: "Error loading posts.",
  adminOnly: "You need to be logged in as an admin to perform this action.",
  toggleFailed: "Failed to update post status",
  orderFailed: "Failed to update post order",
  imageFailed: "Failed to upload image",
  updateFailed: "Failed to update post",
  freeDownloadFailed: "Failed to process free download.",
  tosFailed: "Could not update TOS acceptance.",
  invalidIndex: "Please enter a valid index.",
  downloadStarting: "Download will be starting soon...",
  downloadStarted: "Download initiated.",
  guestTos: "If you don't want this popup every time, sign up!",
  postNotFound: "Post not found.",
  locked: "You do not have access to this post.",
  tosRequired: "Please accept the terms of service before downloading.",
  fileMissing: "This post has no file to download yet.",
  notFree: "This post is not free. Please use its Download button.",
  fileUploadFailed: "Failed to upload file",
  manifestLinkExpired: "This download link has expired. Fetch your library manifest again for a new one.",
  manifestFailed: "Could not make your library manifest.",
  deltaFromMissing: "Name the version you have with ?from=.",
  deltaFromUnknown: "This post has no version by that name, so no update can be made from it. Download the whole file.",
  deltaFromCurrent: "You already have the current version of this post.",
  deltaNotPossible: "No update can be made between these versions. Download the whole file.",
  deltaFailed: "Could not make the update.",
} as const;

/** Spec section 9: download-started message delay. */
export const DOWNLOAD_MESSAGE_DELAY_MS = 3000;
export const POSTS_PER_LINE = [2, 3, 4] as const;
export const DEFAULT_POSTS_PER_LINE = 2;

export const LIBRARY_FILTERS = ["all", "unlocked", "locked", "patreon", "outdated", "never", "works", "unconfirmed"] as const;
export type LibraryFilter = (typeof LIBRARY_FILTERS)[number];
/** Filters that need a logged-in user (they depend on the user's downloads). */
export const USER_ONLY_FILTERS: readonly LibraryFilter[] = ["outdated", "never"];

/** The `filter` query parameter: anything unknown (or user-only for a guest) means all. */
export function parseLibraryFilter(value: string | null | undefined, loggedIn: boolean): LibraryFilter {
  const filter = (LIBRARY_FILTERS as readonly string[]).includes(value ?? "") ? (value as LibraryFilter) : "all";
  if (!loggedIn && USER_ONLY_FILTERS.includes(filter)) return "all";
  return filter;
}

export function parsePostsPerLine(value: string | null | undefined): number {
  const number = Number(value);
  return (POSTS_PER_LINE as readonly number[]).includes(number) ? number : DEFAULT_POSTS_PER_LINE;
}

const optionalText = z
  .string()
  .trim()
  .max(2000)
  .transform((value) => (value === "" ? null : value));

const optionalDate = z.union([z.string(), z.null()]).transform((value, ctx) => {
  if (value === null || value.trim() === "") return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "Please enter a valid date." });
    return z.NEVER;
  }
  return date;
});

const tierIds = z
  .array(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "Unknown tier."),
  )
  .max(100);

/** Editable post fields, in the /api's spec names. Every field is optional: absent = unchanged. */
export const postUpdateSchema = z
  .object({
    title: z.string().trim().min(1, "Title is required.").max(300),
    version: z.string().trim().max(40),
    kofi_id: optionalText,
    drive_file_id: optionalText,
    url: optionalText,
    paid_content: z.boolean(),
    is_content: z.boolean(),
    is_kofiOnly: z.boolean(),
    enabled: z.boolean(),
    tiers: tierIds,
    first_tiers: tierIds,
    first_published_at: optionalDate,
    published_at: optionalDate,
    last_updated: optionalDate,
    /** "add-on" or "theme" marks a Blender extension; "none" unmarks (docs/product.md#blender-extensions). */
    blender_extension: blenderExtensionSchema,
    /** The shop item's price where known (docs/product.md#prices). */
    shop_price_cents: z
      .number({ invalid_type_error: "Enter the shop price as an amount such as 4.50." })
      .int("Enter the shop price as an amount such as 4.50.")
      .min(0, "Enter the shop price as an amount such as 4.50.")
      .max(100_000_000)
      .nullable(),
    shop_currency: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{3}$/, "The currency is a three-letter code such as USD.")
      .nullable(),
  })
  .partial();
export type PostUpdateInput = z.infer<typeof postUpdateSchema>;

export const postCreateSchema = postUpdateSchema.extend({
  postId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "Post ids are letters, digits, - and _.")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  title: z.string().trim().min(1, "Title is required.").max(300),
  /** Scheduled publication (docs/product.md#releases); absent or "" publishes at once. */
  publish_at: optionalPublishAtSchema,
});
export type PostCreateInput = z.infer<typeof postCreateSchema>;

export const toggleSchema = z.object({
  enabled: z.boolean({ required_error: "enabled must be true or false.", invalid_type_error: "enabled must be true or false." }),
});

export const orderSchema = z.object({
  orderDate: z
    .string({ required_error: "Please enter a valid date." })
    .refine((value) => !Number.isNaN(new Date(value).getTime()), "Please enter a valid date.")
    .transform((value) => new Date(value)),
});

export const setIndexSchema = z.object({
  index: z.coerce.number({ invalid_type_error: LIBRARY_MESSAGES.invalidIndex }).int(LIBRARY_MESSAGES.invalidIndex).min(0, LIBRARY_MESSAGES.invalidIndex),
});

/** Set Index accepts only a plain number of 0 or more ("" or "abc" are refused). */
export function parseSetIndex(value: unknown) {
  if (typeof value === "string" && !/^\s*\d+\s*$/.test(value)) return setIndexSchema.safeParse({ index: Number.NaN });
  return setIndexSchema.safeParse({ index: value });
}

export const acceptTosSchema = z.object({
  tosAccepted: z.literal(true, { errorMap: () => ({ message: LIBRARY_MESSAGES.tosFailed }) }),
});

/** The card's hidden copy of a field as it was drawn: `drawn_title` for `title`. */
export function drawnFieldName(name: string): string {
  return `drawn_${name}`;
}

/** A list of tier ids as the card draws it in one hidden field: sorted, comma-separated. */
export function drawnTierList(ids: readonly string[]): string {
  return [...new Set(ids)].sort().join(",");
}

/**
 * The admin card form as the same object the PUT /api/library/posts/{id} route takes.
 * Checkboxes: absent = false; tier checkboxes repeat their name.
 *
 * The card also posts each field's value as it was drawn (`drawn_<name>`). A field whose value
 * is still the drawn one was not edited and is left out, so Save changes only what the admin
 * changed: a version uploaded (or a field changed elsewhere) after the card was drawn stays.
 */
export function postFormToInput(form: FormData): Record<string, unknown> {
  const text = (name: string) => formOptionalText(form, name);
  const unchanged = (name: string, value: string) => {
    const drawn = text(drawnFieldName(name));
    return drawn !== undefined && drawn === value;
  };
  const input: Record<string, unknown> = {};
  for (const name of ["title", "version", "kofi_id", "drive_file_id", "url", "first_published_at", "published_at", "last_updated", "blender_extension"]) {
    const value = text(name);
    if (value !== undefined && !unchanged(name, value)) input[name] = value;
  }
  for (const name of ["first_published_at", "published_at", "last_updated"]) {
    // <input type="date"> answers YYYY-MM-DD: a day in UTC.
    const value = input[name];
    if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) input[name] = `${value}T00:00:00.000Z`;
  }
  for (const name of ["shop_price", "shop_currency"]) {
    const value = text(name);
    if (value === undefined || unchanged(name, value)) continue;
    const trimmed = value.trim();
    if (name === "shop_currency") input.shop_currency = trimmed === "" ? null : trimmed;
    else input.shop_price_cents = trimmed === "" ? null : /^\d+(?:\.\d{1,2})?$/.test(trimmed) ? Math.round(Number(trimmed) * 100) : Number.NaN;
  }
  if (form.has("has_flags")) {
    for (const name of ["is_kofiOnly", "paid_content"]) {
      const checked = formFlag(form, name, "on");
      if (!unchanged(name, checked ? "on" : "")) input[name] = checked;
    }
  }
  if (form.has("has_tiers")) {
    for (const name of ["tiers", "first_tiers"]) {
      const ids = formTexts(form, name);
      if (!unchanged(name, drawnTierList(ids))) input[name] = ids;
    }
  }
  return input;
}
