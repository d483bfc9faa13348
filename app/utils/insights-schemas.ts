// The insights time range: one schema for the page's form and every CSV export, so a chart and
// its export always cover the same UTC days.
import { z } from "zod";

export const INSIGHTS_MESSAGES = {
  forbidden: "Only admins can see insights.",
  customDatesRequired: "Choose a start and an end date for a custom range.",
  invalidDate: "Dates must be written as YYYY-MM-DD.",
  endBeforeStart: "The end date must not be before the start date.",
  rangeTooLong: "A custom range can cover at most 3 years.",
  unknownChart: "Unknown chart.",
} as const;

export const RANGE_PRESETS = ["7", "30", "90", "365"] as const;
const MAX_CUSTOM_DAYS = 3 * 366;
const DAY_MS = 24 * 60 * 60 * 1000;

const isoDay = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, INSIGHTS_MESSAGES.invalidDate)
  .refine(
    (value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    INSIGHTS_MESSAGES.invalidDate,
  );

export const insightsRangeSchema = z
  .object({
    range: z.enum([...RANGE_PRESETS, "custom"]).catch("30"),
    from: z.union([isoDay, z.literal("")]).optional(),
    to: z.union([isoDay, z.literal("")]).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.range !== "custom") return;
    if (!value.from || !value.to) {
      ctx.addIssue({ code: "custom", message: INSIGHTS_MESSAGES.customDatesRequired, path: [value.from ? "to" : "from"] });
      return;
    }
    const days = (Date.parse(value.to) - Date.parse(value.from)) / DAY_MS;
    if (days < 0) ctx.addIssue({ code: "custom", message: INSIGHTS_MESSAGES.endBeforeStart, path: ["to"] });
    else if (days + 1 > MAX_CUSTOM_DAYS) ctx.addIssue({ code: "custom", message: INSIGHTS_MESSAGES.rangeTooLong, path: ["to"] });
  });

/** Whole UTC days: `from` inclusive, `to` exclusive, both as YYYY-MM-DD (what SQL compares). */
export type InsightsRange = {
  preset: (typeof RANGE_PRESETS)[number] | "custom";
  from: string;
  to: string;
  /** The last day shown (the day before `to`), for forms and captions. */
  lastDay: string;
};

export function dayString(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return dayString(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** Every day from `from` up to (not including) `to`. */
export function daysOf(range: Pick<InsightsRange, "from" | "to">): string[] {
  const days: string[] = [];
  for (let day = range.from; day < range.to; day = addDays(day, 1)) days.push(day);
  return days;
}

export type RangeResult = { success: true; range: InsightsRange } | { success: false; error: string; field: string; values: Record<string, string> };

/**
 * The range the admin chose on the page's form. The form also sends the range and dates it was
 * shown with (`shownRange`, `shownFrom`, `shownTo`): dates edited while the select still names a
 * preset mean a custom range (else the preset would silently win and a wrong pair of dates would
 * never be explained); a select changed to a preset means that preset, whatever dates the form
 * still holds. Links and exports send no shown values, so their `range` is taken as it is.
 */
function chosenRange(params: URLSearchParams): string {
  const range = params.get("range") ?? "30";
  if (!params.has("shownRange") || range === "custom") return range;
  const selectChanged = range !== params.get("shownRange");
  const datesEdited = (params.get("from") ?? "") !== (params.get("shownFrom") ?? "") || (params.get("to") ?? "") !== (params.get("shownTo") ?? "");
  return datesEdited && !selectChanged ? "custom" : range;
}

/**
 * Reads the range from query parameters. A preset of N days ends today (UTC) and includes it;
 * a custom range includes both of its dates.
 */
export function parseInsightsRange(params: URLSearchParams, now = new Date()): RangeResult {
  const values = { range: chosenRange(params), from: params.get("from") ?? "", to: params.get("to") ?? "" };
  const parsed = insightsRangeSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { success: false, error: issue.message, field: String(issue.path[0] ?? "range"), values };
  }
  const { range, from, to } = parsed.data;
  if (range === "custom") return { success: true, range: { preset: range, from: from!, to: addDays(to!, 1), lastDay: to! } };
  const lastDay = dayString(now);
  return { success: true, range: { preset: range, from: addDays(lastDay, 1 - Number(range)), to: addDays(lastDay, 1), lastDay } };
}

/** The query string that reproduces a range (the page's links and the CSV exports use it). */
export function rangeQuery(range: InsightsRange): string {
  const params = new URLSearchParams({ range: range.preset });
  if (range.preset === "custom") {
    params.set("from", range.from);
    params.set("to", range.lastDay);
  }
  return params.toString();
}

export const INSIGHTS_CHARTS = ["downloads", "top-posts", "post-downloads", "supporters", "shop", "inspiration", "bug-reports"] as const;
export type InsightsChart = (typeof INSIGHTS_CHARTS)[number];
export const insightsChartSchema = z.enum(INSIGHTS_CHARTS, { message: INSIGHTS_MESSAGES.unknownChart });

/** Any chart's data as a plain table: what the page shows under the chart and the CSV holds. */
export type DataTable = { columns: string[]; rows: (string | number)[][] };
