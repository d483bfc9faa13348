// Validation for the library (docs/product.md#library-library, docs/api.md#library), shared by the page's forms, its
// actions and the /api routes. Messages are docs/messages.md's, word for word.
import { z } from "zod";
import { blenderExtensionSchema } from "~/utils/blender-manifest";
import { optionalPublishAtSchema } from "~/utils/release-schemas";
import { checkbox, text } from "~/utils/form-fields";
import { postTagsSchema, requirementRowsFormShape, requirementRowsToInput, requirementsSchema, unitsToCents } from "~/utils/catalog-schemas";

// The library's words, filters and card fields live in a zod-free module, so the browser's
// library page does not load zod for them; the schemas below re-export them.
export { LIBRARY_MESSAGES, type LibraryFilter } from "~/utils/library-words";
import { drawnFieldName, drawnTierList, LIBRARY_MESSAGES } from "~/utils/library-words";

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
      .number({ invalid_type_error: LIBRARY_MESSAGES.shopPriceInCents })
      .int(LIBRARY_MESSAGES.shopPriceInCents)
      .min(0, LIBRARY_MESSAGES.shopPriceInCents)
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

/** The Set Index form: only a plain number of 0 or more ("" or "abc" are refused). */
export const setIndexFormSchema = z
  .object({ index: z.string().optional() })
  .transform(({ index }) => ({ index: index !== undefined && /^\s*\d+\s*$/.test(index) ? index : Number.NaN }))
  .pipe(setIndexSchema);

/** The admin card's toggle: `enabled` posted as "true" or "false". */
export const toggleFormSchema = toggleSchema.extend({ enabled: checkbox });

/** The new-post form: its title, an optional id and an optional scheduled publication. */
export const postCreateFormSchema = z.object({ title: text, postId: text, publish_at: text }).pipe(postCreateSchema);

export const acceptTosSchema = z.object({
  tosAccepted: z.literal(true, { errorMap: () => ({ message: LIBRARY_MESSAGES.tosFailed }) }),
});

/** The card's text fields, each drawn with its hidden copy (`drawn_<name>`). */
const POST_TEXT_FIELDS = [
  "title",
  "version",
  "kofi_id",
  "drive_file_id",
  "url",
  "first_published_at",
  "published_at",
  "last_updated",
  "blender_extension",
] as const;
const POST_PRICE_FIELDS = ["shop_price", "shop_currency"] as const;
const POST_FLAG_FIELDS = ["is_kofiOnly", "paid_content"] as const;
const POST_TIER_FIELDS = ["tiers", "first_tiers"] as const;
const DRAWN_FIELDS = [...POST_TEXT_FIELDS, ...POST_PRICE_FIELDS, ...POST_FLAG_FIELDS, ...POST_TIER_FIELDS] as const;

/** The same `field` for each of `names`: part of a form's schema. */
function fieldsNamed<N extends string, F extends z.ZodTypeAny>(names: readonly N[], field: F): Record<N, F> {
  return Object.fromEntries(names.map((name) => [name, field])) as Record<N, F>;
}

/** A field posted or not (undefined), its text as typed. */
const postedText = z.string().optional();

/**
 * The admin card form as the same object the PUT /api/library/posts/{id} route takes, then that
 * route's schema. Checkboxes: absent = false; tier checkboxes repeat their name.
 *
 * The card also posts each field's value as it was drawn (`drawn_<name>`). A field whose value
 * is still the drawn one was not edited and is left out, so Save changes only what the admin
 * changed: a version uploaded (or a field changed elsewhere) after the card was drawn stays.
 * The flags and tiers are read only when their fieldset was drawn (`has_flags`, `has_tiers`).
 */
export const postFormSchema = z
  .object({
    ...fieldsNamed(POST_TEXT_FIELDS, postedText),
    ...fieldsNamed(POST_PRICE_FIELDS, postedText),
    ...fieldsNamed(POST_FLAG_FIELDS, checkbox),
    ...fieldsNamed(POST_TIER_FIELDS, z.array(z.string())),
    ...fieldsNamed(DRAWN_FIELDS.map(drawnFieldName), postedText),
    has_flags: postedText,
    has_tiers: postedText,
  })
  .transform((form, context) => {
    const unchanged = (name: (typeof DRAWN_FIELDS)[number], value: string) => {
      const drawn = form[drawnFieldName(name)];
      return drawn !== undefined && drawn === value;
    };
    const input: Record<string, unknown> = {};
    for (const name of POST_TEXT_FIELDS) {
      const value = form[name];
      if (value !== undefined && !unchanged(name, value)) input[name] = value;
    }
    for (const name of ["first_published_at", "published_at", "last_updated"]) {
      // <input type="date"> answers YYYY-MM-DD: a day in UTC.
      const value = input[name];
      if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) input[name] = `${value}T00:00:00.000Z`;
    }
    for (const name of POST_PRICE_FIELDS) {
      const value = form[name];
      if (value === undefined || unchanged(name, value)) continue;
      if (name === "shop_currency") input.shop_currency = value.trim() === "" ? null : value.trim();
      else input.shop_price_cents = unitsToCents(value);
      // The form asks for units ("4.50"); the API's message speaks of cents.
      if (Number.isNaN(input.shop_price_cents)) context.addIssue({ code: "custom", path: [name], message: LIBRARY_MESSAGES.shopPriceInUnits });
    }
    if (form.has_flags !== undefined) {
      for (const name of POST_FLAG_FIELDS) if (!unchanged(name, form[name] ? "on" : "")) input[name] = form[name];
    }
    if (form.has_tiers !== undefined) {
      for (const name of POST_TIER_FIELDS) if (!unchanged(name, drawnTierList(form[name]))) input[name] = form[name];
    }
    return input;
  })
  .pipe(postUpdateSchema);

/**
 * The post editor's tags with its one Save: null when the fieldset was not drawn (`has_tags`) or
 * the ticked tags are still those drawn, else the tags for PUT /api/admin/posts/{id}/tags.
 */
export const postTagsChangeFormSchema = z
  .object({ has_tags: postedText, tags: z.array(z.string()), [drawnFieldName("tags")]: text })
  .transform((form) => (form.has_tags === undefined || drawnTierList(form.tags) === form.drawn_tags ? null : { tags: form.tags }))
  .pipe(postTagsSchema.nullable());

/**
 * The post editor's requirements with its one Save: null when the rows were not drawn
 * (`has_requirements`) or read as the copy drawn, else the list for PUT /api/admin/posts/{id}/requirements.
 */
export const requirementsChangeFormSchema = z
  .object({ has_requirements: postedText, [drawnFieldName("requirements")]: text, ...requirementRowsFormShape })
  .transform((form) => {
    if (form.has_requirements === undefined) return null;
    const input = requirementRowsToInput(form);
    return JSON.stringify(input) === form.drawn_requirements ? null : input;
  })
  .pipe(requirementsSchema.nullable());
