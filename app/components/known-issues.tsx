// The post page's "Known issues" (docs/product.md#bug-reports): each report's title and state
// (fixed ones link the version's notes), never who reported it; "Me too" for other downloaders;
// and "Report a bug" for an account that downloaded the post. Plain forms posting to the post
// page; with JavaScript the "me too" buttons go through fetchers and the report form stays put.
import { Form, Link, useActionData, useFetcher } from "@remix-run/react";
import { useId } from "react";
import { SubmitButton, useSavedKey } from "~/components/form";
import { BUG_BODY_MAX, BUG_PATCH_MAX, BUG_TITLE_MAX, type BugState } from "~/utils/bug-report-schemas";

export type KnownIssueView = {
  id: string;
  title: string;
  state: BugState;
  stateWords: string;
  fixedIn: { versionId: string; label: string } | null;
  meToos: number;
  mine: boolean;
  meToo: boolean;
};

export type ReportFormView =
  { canReport: true; version: string; versionId: string | null } | { canReport: false; reason: "guest" | "unverified" | "restricted" | "not-downloaded" };

export type ReportActionData = { ok: boolean; intent: string; message: string; fields?: Record<string, string> };

const WHY_NOT: Record<Exclude<ReportFormView, { canReport: true }>["reason"], string> = {
  guest: "Log in to report a bug on a post you downloaded.",
  unverified: "Verify your email address to report a bug.",
  restricted: "Your account is restricted.",
  "not-downloaded": "Only people who downloaded this post can report a bug on it.",
};

function MeTooButton({ issue, postId, canAct }: { issue: KnownIssueView; postId: string; canAct: boolean }) {
  const fetcher = useFetcher<ReportActionData>({ key: `me-too-${issue.id}` });
  if (!canAct || issue.mine || (issue.state !== "NEW" && issue.state !== "CONFIRMED")) return null;
  const intent = issue.meToo ? "undo-me-too" : "me-too";
  return (
    <fetcher.Form method="post" action={`/library/${encodeURIComponent(postId)}`} className="known-issue-action">
      <input type="hidden" name="reportId" value={issue.id} />
      <SubmitButton
        intent={intent}
        className="button-secondary"
        pending={fetcher.state !== "idle"}
        pendingLabel="Saving..."
        aria-pressed={issue.meToo}
        aria-label={issue.meToo ? `Remove my \u201cme too\u201d on ${issue.title}` : `Me too: ${issue.title}`}
      >
        {issue.meToo ? "Me too \u2713" : "Me too"}
      </SubmitButton>
      {fetcher.data && !fetcher.data.ok ? (
        <span className="form-error" role="alert">
          {fetcher.data.message}
        </span>
      ) : null}
    </fetcher.Form>
  );
}

export function KnownIssues({ postId, issues, form }: { postId: string; issues: KnownIssueView[]; form: ReportFormView }) {
  const action = useActionData<ReportActionData>();
  const reportResult = action?.intent === "report" ? action : undefined;
  const savedKey = useSavedKey("report");
  const id = useId();
  const fields = reportResult?.fields ?? {};
  return (
    <section className="card known-issues" aria-labelledby={`${id}-title`} id="known-issues" data-testid="known-issues">
      <h2 id={`${id}-title`}>Known issues</h2>
      {issues.length === 0 ? (
        <p className="muted">No known issues.</p>
      ) : (
        <ul className="known-issue-list">
          {issues.map((issue) => (
            <li key={issue.id} className="known-issue" data-testid="known-issue">
              <span className="known-issue-title">{issue.title}</span>
              <span className={`badge known-issue-state state-${issue.state.toLowerCase()}`}>
                {issue.fixedIn ? (
                  <>
                    Fixed in <a href={`#version-${issue.fixedIn.versionId}`}>{issue.fixedIn.label}</a>
                  </>
                ) : (
                  issue.stateWords
                )}
              </span>
              {issue.meToos > 0 ? <span className="muted">{issue.meToos === 1 ? "1 person also has it" : `${issue.meToos} people also have it`}</span> : null}
              {issue.mine ? <span className="muted">Your report</span> : null}
              <MeTooButton issue={issue} postId={postId} canAct={form.canReport} />
            </li>
          ))}
        </ul>
      )}
      {form.canReport ? (
        <details className="report-bug" open={reportResult !== undefined && !reportResult.ok}>
          <summary>Report a bug</summary>
          <Form method="post" action={`/library/${encodeURIComponent(postId)}`} key={savedKey} className="report-bug-form" noValidate>
            <p className="muted">
              Your version: <strong>{form.version}</strong> (the one you last downloaded). Admins see who reported; the page shows only the title and state.
            </p>
            <div className="field">
              <label htmlFor={`${id}-bug-title`}>Title</label>
              <input
                id={`${id}-bug-title`}
                name="title"
                required
                maxLength={BUG_TITLE_MAX}
                aria-invalid={fields.title ? true : undefined}
                aria-describedby={fields.title ? `${id}-bug-title-error` : undefined}
              />
              {fields.title ? (
                <p id={`${id}-bug-title-error`} className="field-error" role="alert">
                  {fields.title}
                </p>
              ) : null}
            </div>
            <div className="field">
              <label htmlFor={`${id}-bug-body`}>What happens</label>
              <textarea
                id={`${id}-bug-body`}
                name="body"
                rows={5}
                required
                maxLength={BUG_BODY_MAX}
                aria-invalid={fields.body ? true : undefined}
                aria-describedby={`${id}-bug-body-hint${fields.body ? ` ${id}-bug-body-error` : ""}`}
              />
              <p id={`${id}-bug-body-hint`} className="field-hint">
                Plain text, 10 to {BUG_BODY_MAX} characters: what you did, what you expected, what happened.
              </p>
              {fields.body ? (
                <p id={`${id}-bug-body-error`} className="field-error" role="alert">
                  {fields.body}
                </p>
              ) : null}
            </div>
            <div className="field">
              <label htmlFor={`${id}-bug-patch`}>Game patch (optional)</label>
              <input
                id={`${id}-bug-patch`}
                name="gamePatch"
                maxLength={BUG_PATCH_MAX}
                placeholder="e.g. 1.113"
                aria-invalid={fields.gamePatch ? true : undefined}
                aria-describedby={fields.gamePatch ? `${id}-bug-patch-error` : undefined}
              />
              {fields.gamePatch ? (
                <p id={`${id}-bug-patch-error`} className="field-error" role="alert">
                  {fields.gamePatch}
                </p>
              ) : null}
            </div>
            {reportResult && !reportResult.ok && Object.keys(fields).length === 0 ? (
              <p className="form-error" role="alert">
                {reportResult.message}
              </p>
            ) : null}
            <SubmitButton intent="report" pendingLabel="Sending...">
              Send the report
            </SubmitButton>
          </Form>
        </details>
      ) : (
        <p className="muted" data-testid="report-why-not">
          {form.reason === "guest" ? (
            <>
              <Link to="/login">Log in</Link> to report a bug on a post you downloaded.
            </>
          ) : (
            WHY_NOT[form.reason]
          )}
        </p>
      )}
    </section>
  );
}
