// The release editor's rows while the creator writes them (docs/product.md#the-release-editor):
// "Add step" and "Remove" change the rows without saving, with JavaScript in the page and
// without it through the library action, which sends the rows back in the address
// (`release_draft`) so what was typed is kept. Also which tiers the editor offers, and the
// ladder preview of the rows. Pure: shared by the editor and the action.
import { z } from "zod";
import { releaseLadder, type LadderRung, type LadderTier, type ListedReleaseStep } from "~/utils/release-ladder";
import { text } from "~/utils/form-fields";
import { audienceTierIds, MAX_RELEASE_STEPS, releaseRowsFormShape, releaseRowsOf, stepOpensAt } from "~/utils/release-schemas";
import { instantToZoned, zonedToInstant } from "~/utils/time-zone";

/**
 * One row as typed: the audience ("" none, "everyone", a tier id), days after publication, a
 * wall-clock date, and the Discord channel address that announces the step ("" none).
 */
export type DraftRow = { audience: string; days: string; date: string; announce?: string };

export const BLANK_ROW: DraftRow = { audience: "", days: "", date: "" };

/**
 * The editor's form as typed: its rows in order, and `step_edit` ("add", "remove:<index>" or ""
 * for Save). The announcement address only where one was typed, so rows without one stay as they were.
 */
export const draftFormSchema = z.object({ step_edit: text, ...releaseRowsFormShape }).transform((form) => ({
  edit: form.step_edit,
  rows: releaseRowsOf(form).map(({ announce, ...row }): DraftRow => (announce ? { ...row, announce } : row)),
}));

/** The saved steps as rows, their dates in the creator's `timeZone`. */
export function savedDraftRows(steps: readonly ListedReleaseStep[], timeZone: string, announceUrls: readonly (string | null)[] = []): DraftRow[] {
  return steps.map((step, index) => ({
    audience: step.audience_tier_id ?? "everyone",
    days: step.opens_on ? "" : String(step.after_days ?? 0),
    date: step.opens_on ? instantToZoned(new Date(step.opens_on), timeZone) : "",
    ...(announceUrls[index] ? { announce: announceUrls[index] } : {}),
  }));
}

/** `edit` is "add" (a blank row at the end, up to the most steps) or "remove:<index>". */
export function editDraftRows(rows: readonly DraftRow[], edit: string): DraftRow[] {
  if (edit === "add") return rows.length >= MAX_RELEASE_STEPS ? [...rows] : [...rows, { ...BLANK_ROW }];
  const remove = /^remove:(\d+)$/.exec(edit);
  if (remove) return rows.filter((_, index) => index !== Number(remove[1]));
  return [...rows];
}

const draftSchema = z.object({
  post: z.string().max(64),
  rows: z
    .array(z.object({ audience: z.string().max(64), days: z.string().max(8), date: z.string().max(32), announce: z.string().max(500).optional() }))
    .max(MAX_RELEASE_STEPS),
});

/** The rows of one post's editor as the `release_draft` parameter. */
export function encodeReleaseDraft(postId: string, rows: readonly DraftRow[]): string {
  return JSON.stringify({ post: postId, rows });
}

/** The `release_draft` parameter's post and rows; null when it is absent or not one. */
export function decodeReleaseDraft(text: string | null): { post: string; rows: DraftRow[] } | null {
  if (!text) return null;
  try {
    const parsed = draftSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type EditorTier = LadderTier & { isPaid: boolean; subscribeLabel: string | null; amount_cents: number | null };

/**
 * The tiers a step may open to: the current paid tiers (paid, with a Subscribe label: those a
 * fan can join today), and a legacy one only when one of the `used` audiences already names it.
 */
export function editorTiers<T extends EditorTier>(tiers: readonly T[], used: readonly string[]): T[] {
  return tiers.filter((tier) => (tier.isPaid && tier.subscribeLabel !== null) || used.includes(tier.tierId));
}

/**
 * The ladder the rows would give (the same rungs as the cards), read at `now` by an admin, so no
 * rung is marked as the viewer's; null when no row would open ahead. Rows that do not yet read
 * as a step (no audience, an unreadable date) are left out.
 */
export function draftLadder(
  rows: readonly DraftRow[],
  post: { tiers: readonly string[]; is_kofiOnly: boolean },
  tiers: readonly EditorTier[],
  publishedAt: Date,
  timeZone: string,
  now: Date,
): LadderRung[] | null {
  const pricing = tiers.map((tier) => ({ id: tier.tierId, isPaid: tier.isPaid, amountCents: tier.amount_cents }));
  const steps: ListedReleaseStep[] = [];
  for (const row of rows) {
    if (!row.audience) continue;
    const date = row.date ? zonedToInstant(row.date, timeZone) : null;
    if (row.date && !date) continue;
    const days = row.days === "" ? 0 : Number(row.days);
    if (!date && (!Number.isInteger(days) || days < 0)) continue;
    const opensAt = stepOpensAt({ after_days: date ? null : days, opens_on: date }, publishedAt);
    steps.push({
      audience_tier_id: row.audience === "everyone" ? null : row.audience,
      tier_ids: row.audience === "everyone" ? null : audienceTierIds(row.audience, pricing),
      after_days: date ? null : days,
      opens_on: date ? date.toISOString() : null,
      opens_at: opensAt.toISOString(),
    });
  }
  const ladder = releaseLadder({ tiers: post.tiers, release_steps: steps, is_kofiOnly: post.is_kofiOnly }, tiers, null, now);
  return ladder?.map((rung) => ({ ...rung, yours: false })) ?? null;
}
