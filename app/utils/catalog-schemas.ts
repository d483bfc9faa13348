// Validation for requirements, tags and prices (docs/product.md#requirements, #tags, #prices),
// shared by the admin forms and the /api/admin routes. Messages are docs/messages.md's.
import { z } from "zod";
import { text } from "~/utils/form-fields";

// Prices as buttons show them live in a zod-free module, for the browser's pages.
export { formatPrice } from "~/utils/price-words";

export const CATALOG_MESSAGES = {
  requirementsSaved: "Requirements saved.",
  requirementsFailed: "Could not save the requirements.",
  tagsSaved: "Tags saved.",
  tagsFailed: "Could not save the tags.",
  tagCreated: "Tag created.",
  tagDeleted: "Tag deleted.",
  tagFailed: "Could not save the tag.",
  tagNotFound: "Tag not found.",
  tagSlugTaken: "A tag with this slug already exists.",
  unknownTag: "Unknown tag.",
  tierSaved: "Tier price saved.",
  tierFailed: "Could not save the tier price.",
  tierNotFound: "Tier not found.",
  /** The tier price form's amount, typed in the currency's units; the API takes cents (tierPriceSchema). */
  priceInUnits: "Enter the price as an amount such as 4.50.",
  requiredPostUnknown: "The required post does not exist.",
  requiresItself: "A post cannot require itself.",
  requiredTwice: "Each post can be required only once.",
  requirementKind: "A requirement is a post or an outside item (a name and a link), not both.",
  httpsLink: "The link must start with https://.",
  nameRequired: "Give the outside item a name.",
} as const;

const postId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, CATALOG_MESSAGES.requiredPostUnknown);

const optionalLabel = z
  .string()
  .trim()
  .max(40)
  .optional()
  .nullable()
  .transform((value) => (value ? value : null));

/** One requirement: another post (with an optional minimum version label) or an outside item. */
export const requirementSchema = z
  .object({
    post_id: postId.optional().nullable(),
    min_version: optionalLabel,
    name: z.string().trim().max(120).optional().nullable(),
    url: z.string().trim().max(2000).optional().nullable(),
  })
  .superRefine((value, ctx) => {
    const isPost = Boolean(value.post_id);
    const isItem = Boolean(value.name) || Boolean(value.url);
    if (isPost === isItem || (isItem && value.min_version)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: CATALOG_MESSAGES.requirementKind });
      return;
    }
    if (!isItem) return;
    if (!value.name) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["name"], message: CATALOG_MESSAGES.nameRequired });
    if (!value.url || !isHttpsUrl(value.url)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["url"], message: CATALOG_MESSAGES.httpsLink });
  })
  .transform((value): RequirementInput =>
    value.post_id ? { kind: "post", postId: value.post_id, minVersion: value.min_version } : { kind: "item", name: value.name!, url: value.url! },
  );

export type RequirementInput = { kind: "post"; postId: string; minVersion: string | null } | { kind: "item"; name: string; url: string };

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** PUT /api/admin/posts/{id}/requirements and the post editor's Requirements form: the whole list, in order. */
export const requirementsSchema = z.object({ requirements: z.array(requirementSchema).max(20) }).superRefine((value, ctx) => {
  const ids = value.requirements.flatMap((item) => (item.kind === "post" ? [item.postId] : []));
  if (new Set(ids).size !== ids.length) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["requirements"], message: CATALOG_MESSAGES.requiredTwice });
});
export type RequirementsInput = z.infer<typeof requirementsSchema>;

/** The most requirement rows the post editor draws and reads. */
const MAX_REQUIREMENT_ROWS = 20;
const REQUIREMENT_ROW_FIELDS = ["req_post", "req_min", "req_name", "req_url"] as const;
type RequirementRowField = `${(typeof REQUIREMENT_ROW_FIELDS)[number]}_${number}`;

/** The post editor's requirement rows as its form posts them: `req_post_0`, `req_min_0`, `req_name_0`, `req_url_0`, ... */
export const requirementRowsFormShape = Object.fromEntries(
  Array.from({ length: MAX_REQUIREMENT_ROWS }, (_, index) => REQUIREMENT_ROW_FIELDS.map((field) => [`${field}_${index}`, text])).flat(),
) as Record<RequirementRowField, typeof text>;

/** The rows as the object the /api route takes; a row left blank is no requirement. */
export function requirementRowsToInput(form: Record<RequirementRowField, string>): { requirements: Record<string, string | null>[] } {
  const requirements: Record<string, string | null>[] = [];
  for (let index = 0; index < MAX_REQUIREMENT_ROWS; index++) {
    const cell = (field: (typeof REQUIREMENT_ROW_FIELDS)[number]) => (form[`${field}_${index}`] ?? "").trim();
    const row = { post_id: cell("req_post"), min_version: cell("req_min"), name: cell("req_name"), url: cell("req_url") };
    if (!row.post_id && !row.min_version && !row.name && !row.url) continue;
    requirements.push({ post_id: row.post_id || null, min_version: row.min_version || null, name: row.name || null, url: row.url || null });
  }
  return { requirements };
}

/** The post editor's Requirements form, then the schema of PUT /api/admin/posts/{id}/requirements. */
export const requirementsFormSchema = z.object(requirementRowsFormShape).transform(requirementRowsToInput).pipe(requirementsSchema);

/**
 * The editor's hidden copy of the requirements as drawn: what requirementRowsToInput would read
 * from the rows untouched, so Save writes them only when the admin changed one.
 */
export function drawnRequirements(rows: readonly { post_id: string | null; min_version: string | null; name: string | null; url: string | null }[]): string {
  const value = (text: string | null) => (text ?? "").trim() || null;
  return JSON.stringify({
    requirements: rows
      .map((row) => ({ post_id: value(row.post_id), min_version: value(row.min_version), name: value(row.name), url: value(row.url) }))
      .filter((row) => row.post_id || row.min_version || row.name || row.url),
  });
}

const slug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "A slug is lowercase letters and digits joined by single dashes.")
  .max(60);

/** POST /api/admin/tags and the tags form: a new tag. */
export const tagCreateSchema = z.object({
  name: z.string().trim().min(1, "Give the tag a name.").max(60),
  slug,
});
export type TagCreateInput = z.infer<typeof tagCreateSchema>;

/** The new-tag form (an absent field reads as an empty one), then tagCreateSchema. */
export const tagCreateFormSchema = z.object({ name: text, slug: text }).pipe(tagCreateSchema);

/** PUT /api/admin/posts/{id}/tags and the post editor's tag checkboxes: the post's tags by slug. */
export const postTagsSchema = z.object({ tags: z.array(slug).max(50) });
export type PostTagsInput = z.infer<typeof postTagsSchema>;

/** The `tag` filter of the library's address: a slug, or none. */
export function parseTagFilter(value: string | null | undefined): string | null {
  const parsed = slug.safeParse(value ?? "");
  return parsed.success ? parsed.data : null;
}

/** PUT /api/admin/tiers/{id} and the tier price form: a tier's price per month. */
export const tierPriceSchema = z.object({
  amount_cents: z
    .number({ invalid_type_error: "Enter the price in cents, a whole number of 0 or more." })
    .int("Enter the price in cents, a whole number of 0 or more.")
    .min(0, "Enter the price in cents, a whole number of 0 or more.")
    .max(100_000_000)
    .nullable(),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, "The currency is a three-letter code such as USD."),
});
export type TierPriceInput = z.infer<typeof tierPriceSchema>;

/**
 * A price typed in the currency's units ("5", "4.50") as cents: null when left empty, NaN when it
 * is not such a number (the form refuses it in its own words).
 */
export function unitsToCents(typed: string): number | null {
  const trimmed = typed.trim();
  return trimmed === "" ? null : /^\d+(?:\.\d{1,2})?$/.test(trimmed) ? Math.round(Number(trimmed) * 100) : Number.NaN;
}

/**
 * The tier price form ("5.00" in the currency's units), then the schema of PUT /api/admin/tiers/{id}.
 * An amount that is no such number is refused in the form's own words: the form asks for units, not cents.
 */
export const tierPriceFormSchema = z
  .object({ amount: text, currency: text })
  .transform(({ amount, currency }, context) => {
    const cents = unitsToCents(amount);
    if (Number.isNaN(cents)) context.addIssue({ code: "custom", path: ["amount"], message: CATALOG_MESSAGES.priceInUnits });
    return { amount_cents: cents, currency };
  })
  .pipe(tierPriceSchema);
