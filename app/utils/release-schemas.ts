// Releases (docs/product.md#releases): the validation of a post's publication time and release
// steps, shared by the admin card's forms, the library action and PUT /api/library/posts/{id}/release;
// the presets; and the one-line preview ("Tier 3 at publishing, Tier 2 on 10 Dec, free on 1 Feb").
import { z } from "zod";
import { formatDay } from "~/utils/dates";
import { text } from "~/utils/form-fields";
import { zonedFieldToIso, zonedToInstant } from "~/utils/time-zone";

export const RELEASE_MESSAGES = {
  failed: "Failed to update the release",
  scheduled: "Publication scheduled.",
  published: "Post published.",
  stepsSaved: "Release steps saved.",
  mustBeFuture: "Please choose a time in the future.",
  invalidTime: "Please enter a valid date and time.",
  oneTime: "Each step needs either days after publication or a date, not both.",
  tooMany: "A release has at most 8 steps.",
  unknownTier: "Unknown tier.",
  alreadyPublished: "This post is already published.",
  stepsOrPreset: "Send either the steps or a preset.",
  backInTime: "Each step must open at or after the step before it.",
  beforePublication: "A step cannot open before the post is published.",
  announceUrlInvalid: "An announcement address is a Discord channel webhook address (https://…).",
} as const;

/** The Releases view shows this far ahead and behind (days). */
export const RELEASES_AHEAD_DAYS = 60;
export const RELEASES_BEHIND_DAYS = 30;

/** At most this many steps per post. */
export const MAX_RELEASE_STEPS = 8;
/** The furthest a step may open after publication. */
export const MAX_AFTER_DAYS = 3650;

/** "everyone", or a tier id (the tier and every paid tier above it). */
const audienceSchema = z.union([z.literal("everyone"), z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, RELEASE_MESSAGES.unknownTier)]);

/**
 * An instant as the API sends it (ISO 8601), or as <input type="datetime-local"> does (no zone:
 * the site's times are UTC); null when it is neither.
 */
export function parseInstant(value: string): Date | null {
  const text = value.trim();
  const date = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text) ? `${text}Z` : text);
  return text && !Number.isNaN(date.getTime()) ? date : null;
}

const instantSchema = z
  .string()
  .refine((value) => parseInstant(value) !== null, RELEASE_MESSAGES.invalidTime)
  .transform((value) => parseInstant(value)!);

/** A scheduled publication: absent or "" is none; anything else must be an instant ahead. */
export const optionalPublishAtSchema = z
  .string()
  .optional()
  .transform((value, context) => {
    if (!value?.trim()) return undefined;
    const date = parseInstant(value);
    const message = !date ? RELEASE_MESSAGES.invalidTime : date.getTime() <= Date.now() ? RELEASE_MESSAGES.mustBeFuture : null;
    if (message) {
      context.addIssue({ code: z.ZodIssueCode.custom, message });
      return z.NEVER;
    }
    return date!;
  });

export const releaseStepSchema = z
  .object({
    audience: audienceSchema,
    after_days: z.number().int().min(0).max(MAX_AFTER_DAYS).nullish(),
    opens_on: instantSchema.nullish(),
    /** A Discord channel webhook address: the step, once open, is announced there once (docs/product.md#discord-roles). */
    announce_url: z
      .preprocess(
        (value) => (typeof value === "string" && value.trim() === "" ? null : value),
        z
          .string()
          .trim()
          .max(500, RELEASE_MESSAGES.announceUrlInvalid)
          .url(RELEASE_MESSAGES.announceUrlInvalid)
          .refine((value) => /^https?:\/\//i.test(value), RELEASE_MESSAGES.announceUrlInvalid)
          .nullish(),
      )
      .optional(),
  })
  .refine((step) => (step.after_days == null) !== (step.opens_on == null), RELEASE_MESSAGES.oneTime);
export type ReleaseStepInput = z.infer<typeof releaseStepSchema>;

/**
 * PUT /api/library/posts/{id}/release and the card's steps form: the whole list in order (empty
 * clears it), or a preset to build it from the site's tiers.
 */
export const releaseStepsSchema = z
  .object({
    preset: z.enum(["top-first-30", "tiers-weekly", "tiers-weekly-free-60", "none"]).optional(),
    steps: z.array(releaseStepSchema).max(MAX_RELEASE_STEPS, RELEASE_MESSAGES.tooMany).optional(),
  })
  .strict()
  .superRefine((input, context) => {
    if ((input.preset === undefined) === (input.steps === undefined))
      context.addIssue({ code: z.ZodIssueCode.custom, message: RELEASE_MESSAGES.stepsOrPreset });
  })
  .transform((input): { preset: ReleasePreset } | { steps: ReleaseStepInput[] } => (input.preset ? { preset: input.preset } : { steps: input.steps ?? [] }));
export type ReleaseStepsInput = z.infer<typeof releaseStepsSchema>;

export type PublishInput = { publish_now: true } | { publish_at: Date };

/** The card's and the API's scheduling: `publish_at`, a time ahead; or `publish_now: true`. */
export const publishSchema = z
  .object({ publish_at: instantSchema.optional(), publish_now: z.literal(true).optional() })
  .superRefine((input, context) => {
    if (input.publish_now) return;
    const message = !input.publish_at ? RELEASE_MESSAGES.invalidTime : input.publish_at.getTime() <= Date.now() ? RELEASE_MESSAGES.mustBeFuture : null;
    if (message) context.addIssue({ code: z.ZodIssueCode.custom, path: ["publish_at"], message });
  })
  .transform((input): PublishInput => (input.publish_now ? { publish_now: true } : { publish_at: input.publish_at! }));

type PresetTier = { tierId: string; title: string; isPaid: boolean; amount_cents: number | null };

export const RELEASE_PRESETS = {
  "top-first-30": "Top tier first, everyone after 30 days",
  "tiers-weekly": "Top tier first, then each tier a week later",
  "tiers-weekly-free-60": "Each tier a week apart, everyone after 60 days",
  none: "No steps (the post's own tiers only)",
} as const;
export type ReleasePreset = keyof typeof RELEASE_PRESETS;

function isReleasePreset(value: string): value is ReleasePreset {
  return Object.hasOwn(RELEASE_PRESETS, value);
}

/** Paid tiers, highest first. */
function paidTiersDown(tiers: readonly PresetTier[]): PresetTier[] {
  return tiers.filter((tier) => tier.isPaid).sort((a, b) => (b.amount_cents ?? 0) - (a.amount_cents ?? 0));
}

/** A step's audience: the picked tier and every paid tier priced at or above it (an unknown id alone). */
export function audienceTierIds(tierId: string, tiers: readonly { id: string; isPaid: boolean; amountCents: number | null }[]): string[] {
  const picked = tiers.find((tier) => tier.id === tierId);
  if (!picked || picked.amountCents === null) return [tierId];
  const floor = picked.amountCents;
  return [
    tierId,
    ...tiers.filter((tier) => tier.id !== tierId && tier.isPaid && tier.amountCents !== null && tier.amountCents >= floor).map((tier) => tier.id),
  ];
}

/** A preset's steps for this site's tiers. */
export function presetSteps(preset: ReleasePreset, tiers: readonly PresetTier[]): ReleaseStepInput[] {
  const down = paidTiersDown(tiers);
  const weekly = down.map((tier, index) => ({ audience: tier.tierId, after_days: index * 7, opens_on: null }));
  switch (preset) {
    case "top-first-30":
      return [...(down[0] ? [{ audience: down[0].tierId, after_days: 0, opens_on: null }] : []), { audience: "everyone", after_days: 30, opens_on: null }];
    case "tiers-weekly":
      return weekly;
    case "tiers-weekly-free-60":
      return [...weekly, { audience: "everyone", after_days: 60, opens_on: null }];
    case "none":
      return [];
  }
}

const rowTexts = z.array(z.string().trim());

/** The release editor's rows as posted: `step_audience`, `step_days`, `step_date`, `step_announce` repeated in order, trimmed. */
export const releaseRowsFormShape = { step_audience: rowTexts, step_days: rowTexts, step_date: rowTexts, step_announce: rowTexts };

/** The posted rows, one per audience field ("" where a row left a field out). */
export function releaseRowsOf(form: { [Name in keyof typeof releaseRowsFormShape]: string[] }) {
  return form.step_audience.map((audience, index) => ({
    audience,
    days: form.step_days[index] ?? "",
    date: form.step_date[index] ?? "",
    announce: form.step_announce[index] ?? "",
  }));
}

/**
 * The release editor's steps form as the API's body, then its schema: a preset when one is
 * chosen, else the rows (rows without an audience are skipped). A row's date is a wall-clock
 * time in the creator's `timeZone` (CREATOR_TIME_ZONE).
 */
export const releaseFormSchema = perTimeZone((timeZone) =>
  z
    .object({ preset: z.string().optional(), ...releaseRowsFormShape })
    .transform((form) =>
      form.preset !== undefined && isReleasePreset(form.preset) ? { preset: form.preset } : { steps: releaseRowsToSteps(releaseRowsOf(form), timeZone) },
    )
    .pipe(releaseStepsSchema),
);

/** The card's scheduling form: `publish_at`, a wall-clock time in the creator's `timeZone`, then publishSchema. */
export const scheduleFormSchema = perTimeZone((timeZone) =>
  z
    .object({ publish_at: text })
    .transform(({ publish_at }) => ({ publish_at: zonedFieldToIso(publish_at, timeZone) }))
    .pipe(publishSchema),
);

/** A schema made once per time zone (the creator's is fixed for the process), not on every request. */
function perTimeZone<T>(make: (timeZone: string) => T): (timeZone?: string) => T {
  const made = new Map<string, T>();
  return (timeZone = "UTC") => {
    let schema = made.get(timeZone);
    if (!schema) made.set(timeZone, (schema = make(timeZone)));
    return schema;
  };
}

/** The editor's rows as the API's steps (rows without an audience are skipped; dates read in `timeZone`). */
export function releaseRowsToSteps(rows: readonly { audience: string; days: string; date: string; announce?: string }[], timeZone: string): unknown[] {
  return rows
    .filter((row) => row.audience !== "")
    .map((row) => ({
      audience: row.audience,
      after_days: row.date ? null : row.days === "" ? 0 : Number(row.days),
      opens_on: row.date ? (zonedToInstant(row.date, timeZone)?.toISOString() ?? row.date) : null,
      // The step's Discord announcement address (docs/product.md#discord-roles), when one was given.
      announce_url: row.announce || null,
    }));
}

/** The instant steps given in days count from: the scheduled publication, else the first one, else `fallback`. */
export function publicationTime(publishAt: Date | null, firstPublishedAt: Date | null, fallback: Date): Date {
  return publishAt ?? firstPublishedAt ?? fallback;
}

/** When a step opens: its date, or its days after `publishedAt`. */
export function stepOpensAt(step: { after_days?: number | null; opens_on?: Date | null }, publishedAt: Date): Date {
  return step.opens_on ?? new Date(publishedAt.getTime() + (step.after_days ?? 0) * 86_400_000);
}

/**
 * What is wrong with a release plan against the post's publication (`publishedAt`, see
 * `publicationTime`), or null when it makes sense: every step opens at or after the step before
 * it (steps are listed in the order they open; two at the same instant are fine), and none opens
 * before the post is published. The one rule for the card's form, the library action and
 * PUT /api/library/posts/{id}/release (app/models/release.server.ts asks it before writing), and
 * for a new publication time against the steps already saved.
 */
export function releasePlanProblem(steps: readonly { after_days?: number | null; opens_on?: Date | null }[], publishedAt: Date): string | null {
  let previous: Date | null = null;
  for (const step of steps) {
    const opensAt = stepOpensAt(step, publishedAt);
    if (opensAt.getTime() < publishedAt.getTime()) return RELEASE_MESSAGES.beforePublication;
    if (previous && opensAt.getTime() < previous.getTime()) return RELEASE_MESSAGES.backInTime;
    previous = opensAt;
  }
  return null;
}

/** "Tier 3 at publishing, Tier 2 on 10 Dec, free on 1 Feb", or "" without steps. */
export function releasePreview(steps: readonly { audience: string; opensAt: Date }[], publishedAt: Date, titles: ReadonlyMap<string, string>): string {
  return [...steps]
    .sort((a, b) => a.opensAt.getTime() - b.opensAt.getTime())
    .map((step) => {
      const who = step.audience === "everyone" ? "free" : (titles.get(step.audience) ?? "Unknown Tier");
      return step.opensAt.getTime() <= publishedAt.getTime() ? `${who} at publishing` : `${who} on ${formatDay(step.opensAt)}`;
    })
    .join(", ")
    .replace(/^./, (first) => first.toUpperCase());
}
