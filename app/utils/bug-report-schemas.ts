// Bug reports (docs/product.md#bug-reports): the validation shared by the post page's forms, the
// admin triage page and their /api twins, and the messages in the spec's words (docs/messages.md).
import { z } from "zod";

export const BUG_REPORT_MESSAGES = {
  failed: "Failed to save the bug report.",
  loadFailed: "Failed to load the bug reports.",
  reported: "Thank you: your bug report was sent.",
  meTooAdded: "Added your \u201cme too\u201d.",
  meTooRemoved: "Removed your \u201cme too\u201d.",
  stateSaved: "Report updated.",
  notDownloaded: "Only people who downloaded this post can report a bug on it or add \u201cme too\u201d.",
  unverified: "Please verify your email address before reporting a bug.",
  reportNotFound: "Bug report not found.",
  ownReport: "This is your own report.",
  closed: "This report is closed.",
  tooMany: (wait: string) => `You have sent too many bug reports. Please try again in ${wait}.`,
  titleRequired: "Please give the bug a title.",
  titleTooLong: `The title can be at most 120 characters.`,
  bodyTooShort: "Please describe the bug in at least 10 characters.",
  bodyTooLong: "The description can be at most 5000 characters.",
  patchTooLong: "The game patch can be at most 40 characters.",
  unknownState: "Unknown state.",
  fixedNeedsVersion: "Choose the version that fixes it.",
  unknownVersion: "That version is not a version of this post.",
} as const;

export const BUG_TITLE_MAX = 120;
export const BUG_BODY_MIN = 10;
export const BUG_BODY_MAX = 5000;
export const BUG_PATCH_MAX = 40;
/** Reports one account may send per window (every post together). */
export const BUG_REPORT_LIMIT = 5;
export const BUG_REPORT_WINDOW_MS = 60 * 60 * 1000;

export const BUG_STATES = ["NEW", "CONFIRMED", "FIXED", "WONT_FIX"] as const;
export type BugState = (typeof BUG_STATES)[number];
/** Still waiting for a fix: what Insights counts as open. */
export const OPEN_BUG_STATES: readonly BugState[] = ["NEW", "CONFIRMED"];

/** How the pages name a state (a fixed one adds its version: "Fixed in V1.2"). */
export const BUG_STATE_WORDS: Record<BugState, string> = { NEW: "New", CONFIRMED: "Confirmed", FIXED: "Fixed", WONT_FIX: "Won\u2019t fix" };

export function bugStateWords(state: BugState, fixedIn: string | null): string {
  return state === "FIXED" && fixedIn ? `Fixed in ${fixedIn}` : BUG_STATE_WORDS[state];
}

/** Plain text: control characters other than line breaks and tabs are dropped, lines end in \n. */
function plain(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "");
}

/** A new report: the form's fields and the body of POST /api/library/posts/{id}/reports. */
export const bugReportSchema = z.object({
  title: z
    .string({ message: BUG_REPORT_MESSAGES.titleRequired })
    .transform((value) => plain(value).replace(/\s+/g, " ").trim())
    .pipe(z.string().min(1, BUG_REPORT_MESSAGES.titleRequired).max(BUG_TITLE_MAX, BUG_REPORT_MESSAGES.titleTooLong)),
  body: z
    .string({ message: BUG_REPORT_MESSAGES.bodyTooShort })
    .transform((value) => plain(value).trim())
    .pipe(z.string().min(BUG_BODY_MIN, BUG_REPORT_MESSAGES.bodyTooShort).max(BUG_BODY_MAX, BUG_REPORT_MESSAGES.bodyTooLong)),
  gamePatch: z
    .string()
    .optional()
    .transform((value) =>
      plain(value ?? "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .pipe(z.string().max(BUG_PATCH_MAX, BUG_REPORT_MESSAGES.patchTooLong)),
});

/** An admin's change of state: the triage form and PUT /api/admin/reports/{id}. */
export const bugStateSchema = z
  .object({
    state: z.enum(BUG_STATES, { message: BUG_REPORT_MESSAGES.unknownState }),
    fixedVersionId: z
      .string()
      .optional()
      .nullable()
      .transform((value) => (value ? value : null)),
  })
  .refine((input) => input.state !== "FIXED" || input.fixedVersionId !== null, { message: BUG_REPORT_MESSAGES.fixedNeedsVersion, path: ["fixedVersionId"] });

/** The triage list's filters (query of /admin/reports and GET /api/admin/reports). */
export const bugFilterSchema = z.object({
  state: z
    .enum([...BUG_STATES, "OPEN", "ALL"] as const)
    .optional()
    .catch(undefined)
    .transform((value) => value ?? "OPEN"),
  post: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .catch(undefined),
});
export type BugFilter = z.infer<typeof bugFilterSchema>;
