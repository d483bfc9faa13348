// Inspiration vote inputs: shared by the page's admin forms, its action and `/api/inspiration/*`.
import { z } from "zod";

export const IMAGE_URL_REQUIRED_MESSAGE = "Image URL is required.";
export const IMAGE_URL_INVALID_MESSAGE = "Please enter a valid image URL (https://... or a path starting with /).";
export const TITLE_REQUIRED_MESSAGE = "Title is required.";
export const END_TIME_INVALID_MESSAGE = "Please enter a valid end time.";
export const END_TIME_PAST_MESSAGE = "The voting end time must be in the future.";
export const DEFAULT_INSPIRATION_TITLE = "Inspiration Vote";

export const INSPIRATION_MODES = ["normal", "randomized"] as const;
export type InspirationModeName = (typeof INSPIRATION_MODES)[number];

function isSafeImageUrl(value: string): boolean {
  if (value.startsWith("/")) return !value.startsWith("//");
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

const blankToNull = (value: unknown) => (typeof value === "string" && value.trim() === "" ? null : value);

/** An idea's status (docs/product.md#idea-status); "shipped" needs the idea linked to its post. */
export const IDEA_STATUSES = ["open", "planned", "shipped"] as const;
export type IdeaStatusName = (typeof IDEA_STATUSES)[number];
export const IDEA_STATUS_INVALID_MESSAGE = "Status must be open, planned or shipped.";

export const inspirationPanelSchema = z.object({
  imageUrl: z.preprocess(
    (value) => (value === undefined || value === null ? "" : value),
    z
      .string({ invalid_type_error: IMAGE_URL_REQUIRED_MESSAGE })
      .trim()
      .min(1, IMAGE_URL_REQUIRED_MESSAGE)
      .max(2000)
      .refine(isSafeImageUrl, IMAGE_URL_INVALID_MESSAGE),
  ),
  title: z.preprocess(blankToNull, z.string().trim().max(200).nullish()),
  status: z.preprocess(
    (value) => (value === null || value === "" ? undefined : typeof value === "string" ? value.toLowerCase() : value),
    z.enum(IDEA_STATUSES, { errorMap: () => ({ message: IDEA_STATUS_INVALID_MESSAGE }) }).optional(),
  ),
});
export type InspirationPanelInput = z.infer<typeof inspirationPanelSchema>;

export const inspirationTitleSchema = z.object({
  title: z.preprocess(
    (value) => (value === undefined || value === null ? "" : value),
    z.string({ invalid_type_error: TITLE_REQUIRED_MESSAGE }).trim().min(1, TITLE_REQUIRED_MESSAGE).max(200),
  ),
});

const booleanish = z.preprocess((value) => {
  if (value === "true" || value === "on" || value === "1") return true;
  if (value === "false" || value === "off" || value === "0") return false;
  return value;
}, z.boolean());

/** Config changes; every field is optional so a client may send only what it changes. */
export const inspirationConfigSchema = z.object({
  mode: z.preprocess((value) => (typeof value === "string" ? value.toLowerCase() : value), z.enum(INSPIRATION_MODES)).optional(),
  votingOpen: booleanish.optional(),
  votingEndTime: z
    .preprocess(blankToNull, z.union([z.string(), z.number(), z.null()]))
    .transform((value, context) => {
      if (value === null) return null;
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: END_TIME_INVALID_MESSAGE });
        return z.NEVER;
      }
      // A vote that would end before it is set says so, instead of closing at once in silence.
      if (date.getTime() <= Date.now()) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: END_TIME_PAST_MESSAGE });
        return z.NEVER;
      }
      return date;
    })
    .optional(),
  title: inspirationTitleSchema.shape.title.optional(),
});
export type InspirationConfigInput = z.infer<typeof inspirationConfigSchema>;

/** A like request may name the wanted state; without it the like toggles. */
export const likeRequestSchema = z.object({ like: booleanish.optional() });
