// The admin post card's Release part (docs/product.md#releases): when the post is published (a
// scheduled time, or now) and the steps that open it to more people over time, from a preset or
// a custom list, with a one-line preview. Every form posts to the library's action, with
// JavaScript (a fetcher, and a live preview) and plainly without.
import { useFetcher } from "@remix-run/react";
import { useState } from "react";
import { FoldingSection } from "~/components/folding-section";
import type { CardTier } from "~/components/post-card";
import type { LibraryPost } from "~/models/library-listing.server";
import { formatReleaseTime } from "~/utils/access-words";
import {
  MAX_AFTER_DAYS,
  MAX_RELEASE_STEPS,
  presetSteps,
  publicationTime,
  RELEASE_PRESETS,
  releaseFormToInput,
  releasePreview,
  releaseStepsSchema,
  stepOpensAt,
} from "~/utils/release-schemas";

/** Blank rows offered below the saved steps, so a step can be added without JavaScript. */
const BLANK_ROWS = 2;

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

/** The preview of what the form would save, or null while it does not validate. */
function draftPreview(form: HTMLFormElement, post: LibraryPost, tiers: CardTier[], titles: Map<string, string>, now: Date): string | null {
  const parsed = releaseStepsSchema.safeParse(releaseFormToInput(new FormData(form)));
  if (!parsed.success) return null;
  const steps = "preset" in parsed.data ? presetSteps(parsed.data.preset, tiers) : parsed.data.steps;
  const publishedAt = publicationOf(post, now);
  return releasePreview(
    steps.map((step) => ({ audience: step.audience, opensAt: stepOpensAt(step, publishedAt) })),
    publishedAt,
    titles,
  );
}

function dateTimeInput(iso: string | null): string {
  return iso ? iso.slice(0, 16) : "";
}

/** "Scheduled for 3 Dec, 18:00" beside a scheduled post's title. */
export function ScheduledBadge({ post, scheduled }: { post: LibraryPost; scheduled: boolean }) {
  if (!scheduled || !post.publish_at) return null;
  return (
    <span className="badge badge-scheduled" data-testid="scheduled-badge">
      Scheduled for {formatReleaseTime(new Date(post.publish_at!))}
    </span>
  );
}

/** `scheduled`: the post's publication is still ahead, by the loader's exact clock. */
export function ReleaseSection({ post, tiers, back, now, scheduled }: { post: LibraryPost; tiers: CardTier[]; back: string; now: Date; scheduled: boolean }) {
  const schedule = useFetcher();
  const publish = useFetcher();
  const steps = useFetcher();
  const id = post.postId;
  const field = (name: string) => `${name}-${id}`;
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const saved = savedPreview(post, titles, now);
  const [draft, setDraft] = useState<string | null>(null);
  const rows = [...post.release_steps, ...Array.from({ length: Math.max(0, Math.min(BLANK_ROWS, MAX_RELEASE_STEPS - post.release_steps.length)) }, () => null)];
  const hint = `${scheduled ? `Scheduled for ${formatReleaseTime(new Date(post.publish_at!))}` : "Published"}${saved ? ` · ${saved}` : ""}`;
  return (
    <FoldingSection title="Release" hint={hint} initiallyOpen={false} testId="post-release-section">
      <div className="release-publication">
        <p data-testid="release-publication">
          {scheduled ? `Scheduled for ${formatReleaseTime(new Date(post.publish_at!))} (UTC): only admins see it until then.` : "Published."}
        </p>
        <schedule.Form method="post" action="/library" preventScrollReset className="inline-form">
          <input type="hidden" name="intent" value="schedule" />
          <input type="hidden" name="postId" value={id} />
          <input type="hidden" name="back" value={back} />
          <div className="field">
            <label htmlFor={field("publish-at")}>{scheduled ? "Change the time (UTC)" : "Schedule for (UTC)"}</label>
            <input id={field("publish-at")} type="datetime-local" name="publish_at" required defaultValue={scheduled ? dateTimeInput(post.publish_at) : ""} />
          </div>
          <button type="submit" className="button-secondary" disabled={schedule.state !== "idle"}>
            {schedule.state !== "idle" ? "Scheduling..." : "Schedule"}
          </button>
        </schedule.Form>
        {scheduled ? (
          <publish.Form method="post" action="/library" preventScrollReset>
            <input type="hidden" name="intent" value="publish-now" />
            <input type="hidden" name="postId" value={id} />
            <input type="hidden" name="back" value={back} />
            <button type="submit" className="button" disabled={publish.state !== "idle"}>
              {publish.state !== "idle" ? "Publishing..." : "Publish now"}
            </button>
          </publish.Form>
        ) : null}
      </div>

      <steps.Form
        method="post"
        action="/library"
        preventScrollReset
        className="release-steps"
        onChange={(event) => setDraft(draftPreview(event.currentTarget, post, tiers, titles, now))}
      >
        <input type="hidden" name="intent" value="release-steps" />
        <input type="hidden" name="postId" value={id} />
        <input type="hidden" name="back" value={back} />
        <p className="release-preview" role="status" data-testid="release-preview">
          {draft ?? (saved || "No release steps: the post's own tiers only.")}
        </p>
        <div className="field">
          <label htmlFor={field("preset")}>Preset</label>
          <select id={field("preset")} name="preset" defaultValue="">
            <option value="">Custom steps (below)</option>
            {Object.entries(RELEASE_PRESETS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <fieldset className="release-step-rows">
          <legend>Steps: who, and when (days after publication, or a date in UTC)</legend>
          {rows.map((step, index) => (
            <div className="release-step-row" key={`${index}-${step?.opens_at ?? "new"}`}>
              <div className="field">
                <label htmlFor={field(`step-audience-${index}`)}>Step {index + 1}: opens to</label>
                <select id={field(`step-audience-${index}`)} name="step_audience" defaultValue={step ? (step.audience_tier_id ?? "everyone") : ""}>
                  <option value="">(no step)</option>
                  {tiers.map((tier) => (
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
                  defaultValue={step?.after_days ?? ""}
                />
              </div>
              <div className="field">
                <label htmlFor={field(`step-date-${index}`)}>or on (UTC)</label>
                <input id={field(`step-date-${index}`)} type="datetime-local" name="step_date" defaultValue={dateTimeInput(step?.opens_on ?? null)} />
              </div>
              <div className="field">
                <label htmlFor={field(`step-announce-${index}`)}>Announce on Discord (channel webhook address, optional)</label>
                <input
                  id={field(`step-announce-${index}`)}
                  type="url"
                  name="step_announce"
                  inputMode="url"
                  autoComplete="off"
                  placeholder="https://discord.com/api/webhooks/…"
                  defaultValue={step ? (post.release_announce_urls?.[index] ?? "") : ""}
                />
              </div>
            </div>
          ))}
        </fieldset>
        <button type="submit" className="button" disabled={steps.state !== "idle"}>
          {steps.state !== "idle" ? "Saving..." : "Save steps"}
        </button>
      </steps.Form>
    </FoldingSection>
  );
}
