// The admin post card's Release part, the release editor (docs/product.md#the-release-editor):
// when the post is published (a scheduled time, or now) and the steps that open it to more
// people over time, from a preset or rows added and removed at will, with the ladder the cards
// will show as a live preview. Times are the creator's (CREATOR_TIME_ZONE), UTC beside them.
// Every form posts to the page's action (the post's editor), with JavaScript (a fetcher; Add step and Remove in
// the page) and plainly without (Add step and Remove come back through the address).
import { useFetcher, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { useState } from "react";
import { FoldingSection } from "~/components/folding-section";
import { LadderRungs, type CardTier } from "~/components/post-card";
import type { LibraryPost } from "~/models/library-listing.server";
import type { RootLoader } from "~/root";
import { decodeReleaseDraft, draftLadder, editDraftRows, editorTiers, savedDraftRows, type DraftRow } from "~/utils/release-draft";
import {
  MAX_AFTER_DAYS,
  MAX_RELEASE_STEPS,
  presetSteps,
  publicationTime,
  RELEASE_MESSAGES,
  RELEASE_PRESETS,
  releasePlanProblem,
  releaseRowsToSteps,
  releasePreview,
  releaseStepsSchema,
  stepOpensAt,
} from "~/utils/release-schemas";
import { formatDay, formatDayTime, formatTime } from "~/utils/dates";
import { instantToZoned, zonedToInstant } from "~/utils/time-zone";
import { parseInput } from "~/utils/input-words";

/** When the post counts as published, as the server computes its steps' instants. */
function publicationOf(post: LibraryPost, now: Date): Date {
  const date = (iso: string | null) => (iso ? new Date(iso) : null);
  return publicationTime(date(post.publish_at), date(post.first_published_at), now);
}

/** The preview of the saved steps. */
function savedPreview(post: LibraryPost, titles: Map<string, string>, now: Date): string {
  const steps = post.release_steps.map((step) => ({ audience: step.audience_tier_id ?? "everyone", opensAt: new Date(step.opens_at) }));
  return releasePreview(steps, publicationOf(post, now), titles);
}

/**
 * The one-line preview of what the rows (or the preset) would save: its words, or what is wrong
 * with it (the schema's and the plan's messages, as a save would answer).
 */
function draftPreview(input: unknown, post: LibraryPost, tiers: CardTier[], titles: Map<string, string>, now: Date): { words: string } | { problem: string } {
  const parsed = parseInput(releaseStepsSchema, input);
  if (!parsed.success) return { problem: parsed.error.issues[0]?.message ?? RELEASE_MESSAGES.failed };
  const steps = "preset" in parsed.data ? presetSteps(parsed.data.preset, tiers) : parsed.data.steps;
  if (steps.length === 0) return { words: "No release steps: the post's own tiers only." };
  const publishedAt = publicationOf(post, now);
  const problem = releasePlanProblem(steps, publishedAt);
  if (problem) return { problem };
  return {
    words: releasePreview(
      steps.map((step) => ({ audience: step.audience, opensAt: stepOpensAt(step, publishedAt) })),
      publishedAt,
      titles,
    ),
  };
}

/** The creator's time zone, from the root loader (admins only; UTC otherwise). */
export function useCreatorTimeZone(): string {
  return useRouteLoaderData<RootLoader>("root")?.creatorTimeZone ?? "UTC";
}

/** "1 Dec 2026, 18:00 (Europe/Berlin) · 17:00 UTC"; the zone's time alone when it is UTC. */
export function zonedWithUtc(date: Date, zone: string): string {
  return `${formatDayTime(date, { timeZone: zone })} (${zone})${utcBeside(date, zone)}`;
}

/** "18:00 (Europe/Berlin) · 17:00 UTC": the time of day alone, for a list already by day. */
export function clockWithUtc(date: Date, zone: string): string {
  return `${formatTime(date, { timeZone: zone })} (${zone})${utcBeside(date, zone)}`;
}

/** " · 17:00 UTC", with " on 2 Dec 2026" when the UTC day differs from the zone's; nothing when the zone is UTC. */
function utcBeside(date: Date, zone: string): string {
  if (zone === "UTC") return "";
  const utcDay = formatDay(date, { timeZone: "UTC" });
  return ` · ${formatTime(date, { timeZone: "UTC" })} UTC${formatDay(date, { timeZone: zone }) === utcDay ? "" : ` on ${utcDay}`}`;
}

/** When a row opens, in words, or "" while it does not read as a step. */
function rowOpens(row: DraftRow, publishedAt: Date, zone: string): string {
  if (!row.audience) return "";
  if (row.date) {
    const date = zonedToInstant(row.date, zone);
    return date ? `Opens ${zonedWithUtc(date, zone)}` : "";
  }
  const days = row.days === "" ? 0 : Number(row.days);
  if (!Number.isInteger(days) || days < 0) return "";
  return `Opens ${zonedWithUtc(stepOpensAt({ after_days: days }, publishedAt), zone)}`;
}

/**
 * `scheduled`: the post's publication is still ahead, by the loader's exact clock. `action`: the
 * page whose action takes the forms (the post's editor).
 */
export function ReleaseSection({
  post,
  tiers,
  back,
  now,
  scheduled,
  action = "/library",
  initiallyOpen = false,
}: {
  post: LibraryPost;
  tiers: CardTier[];
  back: string;
  now: Date;
  scheduled: boolean;
  action?: string;
  initiallyOpen?: boolean;
}) {
  const schedule = useFetcher();
  const publish = useFetcher();
  const zone = useCreatorTimeZone();
  const [searchParams] = useSearchParams();
  const id = post.postId;
  const field = (name: string) => `${name}-${id}`;
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const saved = savedPreview(post, titles, now);
  // Rows sent back by "Add step" or "Remove" without JavaScript, or by a refused save.
  const draftParam = searchParams.get("release_draft");
  const draft = decodeReleaseDraft(draftParam);
  const rows = draft?.post === id ? draft.rows : savedDraftRows(post.release_steps, zone, post.release_announce_urls ?? []);
  const hint = `${scheduled ? `Scheduled for ${formatDayTime(post.publish_at!)}` : "Published"}${saved ? ` · ${saved}` : ""}`;
  const publishAt = post.publish_at ? new Date(post.publish_at) : null;
  return (
    <FoldingSection title="Release" hint={hint} initiallyOpen={initiallyOpen || draft?.post === id} testId="post-release-section">
      <div className="release-publication" id={`release-${id}`}>
        <p data-testid="release-publication">
          {scheduled && publishAt ? `Scheduled for ${zonedWithUtc(publishAt, zone)}: only admins see it until then.` : "Published."}
        </p>
        <schedule.Form method="post" action={action} preventScrollReset className="inline-form">
          <input type="hidden" name="intent" value="schedule" />
          <input type="hidden" name="postId" value={id} />
          <input type="hidden" name="back" value={back} />
          <div className="field">
            <label htmlFor={field("publish-at")}>{scheduled ? `Change the time (${zone})` : `Schedule for (${zone})`}</label>
            <input
              id={field("publish-at")}
              type="datetime-local"
              name="publish_at"
              required
              defaultValue={scheduled && publishAt ? instantToZoned(publishAt, zone) : ""}
            />
          </div>
          <button type="submit" className="button-secondary" disabled={schedule.state !== "idle"}>
            {schedule.state !== "idle" ? "Scheduling..." : "Schedule"}
          </button>
        </schedule.Form>
        {scheduled ? (
          <publish.Form method="post" action={action} preventScrollReset>
            <input type="hidden" name="intent" value="publish-now" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <button type="submit" className="button" disabled={publish.state !== "idle"}>
              {publish.state !== "idle" ? "Publishing..." : "Publish now"}
            </button>
          </publish.Form>
        ) : null}
      </div>
      <ReleaseStepsForm
        // Drawn again when the saved steps or the rows sent back change (after a save, a refusal).
        key={`${post.release_steps.map((step) => `${step.audience_tier_id}@${step.opens_at}`).join(",")}|${draft?.post === id ? draftParam : ""}`}
        post={post}
        tiers={tiers}
        titles={titles}
        initialRows={rows}
        back={back}
        now={now}
        zone={zone}
        action={action}
      />
    </FoldingSection>
  );
}

function ReleaseStepsForm({
  post,
  tiers,
  titles,
  initialRows,
  back,
  now,
  zone,
  action,
}: {
  post: LibraryPost;
  tiers: CardTier[];
  titles: Map<string, string>;
  initialRows: DraftRow[];
  back: string;
  now: Date;
  zone: string;
  action: string;
}) {
  const steps = useFetcher();
  const id = post.postId;
  const field = (name: string) => `${name}-${id}`;
  const [rows, setRows] = useState<DraftRow[]>(initialRows);
  const [preset, setPreset] = useState("");
  // Each row keeps its key while others are removed, so React keeps what was typed in it.
  const [keys, setKeys] = useState<number[]>(() => initialRows.map((_, index) => index));
  const offered = editorTiers(
    tiers,
    rows.map((row) => row.audience),
  );
  const publishedAt = publicationOf(post, now);
  const presetRows = preset ? presetSteps(preset as keyof typeof RELEASE_PRESETS, tiers) : null;
  const previewRows: DraftRow[] = presetRows ? presetRows.map((step) => ({ audience: step.audience, days: String(step.after_days ?? 0), date: "" })) : rows;
  const ladder = draftLadder(previewRows, post, tiers, publishedAt, zone, now);
  const summary = draftPreview(preset ? { preset } : { steps: releaseRowsToSteps(rows, zone) }, post, tiers, titles, now);

  function update(index: number, change: Partial<DraftRow>) {
    setRows((current) => current.map((row, at) => (at === index ? { ...row, ...change } : row)));
  }
  function edit(event: React.MouseEvent<HTMLButtonElement>, change: string) {
    // With JavaScript the rows change in the page; without it the button submits (step_edit).
    event.preventDefault();
    setRows((current) => editDraftRows(current, change));
    setKeys((current) => {
      if (change === "add") return current.length >= MAX_RELEASE_STEPS ? current : [...current, Math.max(-1, ...current) + 1];
      const index = Number(change.slice("remove:".length));
      return current.filter((_, at) => at !== index);
    });
  }

  return (
    <steps.Form method="post" action={action} preventScrollReset className="release-steps" data-testid="release-editor">
      {/* Enter in a field saves: the form's first submit button is this one, not a Remove. */}
      <button type="submit" className="visually-hidden" tabIndex={-1} aria-hidden="true">
        Save steps
      </button>
      <input type="hidden" name="intent" value="release-steps" />
      <input type="hidden" name="postId" value={id} />
      <input type="hidden" name="back" value={back} />
      <div className="release-preview">
        <p className={"problem" in summary ? "release-preview-words field-error" : "release-preview-words"} role="status" data-testid="release-preview">
          {"problem" in summary ? summary.problem : summary.words}
        </p>
        <LadderRungs rungs={ladder} testId="release-preview-ladder" />
      </div>
      <div className="field">
        <label htmlFor={field("preset")}>Preset</label>
        <select id={field("preset")} name="preset" value={preset} onChange={(event) => setPreset(event.currentTarget.value)}>
          <option value="">Custom steps (below)</option>
          {Object.entries(RELEASE_PRESETS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="release-step-rows">
        <legend>Steps: who, and when (days after publication, or a date and time in {zone})</legend>
        {rows.length === 0 ? <p className="muted">No steps yet.</p> : null}
        {rows.map((row, index) => (
          <div className="release-step-row" key={keys[index] ?? index} data-testid="release-step-row">
            <div className="field">
              <label htmlFor={field(`step-audience-${index}`)}>Step {index + 1}: opens to</label>
              <select
                id={field(`step-audience-${index}`)}
                name="step_audience"
                value={row.audience}
                onChange={(event) => update(index, { audience: event.currentTarget.value })}
              >
                <option value="">(choose who)</option>
                {offered.map((tier) => (
                  <option key={tier.tierId} value={tier.tierId}>
                    {tier.title} and above
                  </option>
                ))}
                <option value="everyone">Everyone (free)</option>
              </select>
            </div>
            <div className="field">
              <label htmlFor={field(`step-days-${index}`)}>Days after publication</label>
              <input
                id={field(`step-days-${index}`)}
                type="number"
                name="step_days"
                min={0}
                max={MAX_AFTER_DAYS}
                step={1}
                inputMode="numeric"
                value={row.days}
                onChange={(event) => update(index, { days: event.currentTarget.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={field(`step-date-${index}`)}>or on ({zone})</label>
              <input
                id={field(`step-date-${index}`)}
                type="datetime-local"
                name="step_date"
                value={row.date}
                onChange={(event) => update(index, { date: event.currentTarget.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={field(`step-announce-${index}`)}>Announce on Discord (channel webhook address, optional)</label>
              <input
                id={field(`step-announce-${index}`)}
                type="url"
                name="step_announce"
                inputMode="url"
                value={row.announce ?? ""}
                onChange={(event) => update(index, { announce: event.currentTarget.value })}
              />
            </div>
            <p className="release-step-when muted" data-testid="release-step-when">
              {rowOpens(row, publishedAt, zone)}
            </p>
            <button
              type="submit"
              name="step_edit"
              value={`remove:${index}`}
              formNoValidate
              className="button-quiet release-step-remove"
              aria-label={`Remove step ${index + 1}`}
              onClick={(event) => edit(event, `remove:${index}`)}
            >
              Remove
            </button>
          </div>
        ))}
        {rows.length < MAX_RELEASE_STEPS ? (
          <button type="submit" name="step_edit" value="add" formNoValidate className="button-secondary" onClick={(event) => edit(event, "add")}>
            Add step
          </button>
        ) : (
          <p className="muted">A release has at most {MAX_RELEASE_STEPS} steps.</p>
        )}
      </fieldset>
      <button type="submit" className="button" disabled={steps.state !== "idle"}>
        {steps.state !== "idle" ? "Saving..." : "Save steps"}
      </button>
    </steps.Form>
  );
}
