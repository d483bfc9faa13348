// The admin's tools beside the user list: code search, the CSV purchase import, the interval
// job and sending the update digests. Each is a form posting to the /admin action: through a
// fetcher with JavaScript, as a plain post without.
import { Link, useFetcher } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import type { AdminActionData, CodeSearchData } from "~/components/admin/action-data";
import { adminHref } from "~/components/admin/admin-href";
import { DataTable } from "~/components/admin/data-table";
import { FileDrop } from "~/components/file-drop";
import { formatDay, formatDayTime } from "~/utils/dates";
import { useIntentAnswer } from "~/components/admin/use-intent-answer";
import { showToast } from "~/components/toaster";
import { ADMIN_MESSAGES, isPurchaseCsvName } from "~/utils/admin-schemas";
import { PURCHASE_CSV_OPTIONAL_COLUMNS, PURCHASE_CSV_REQUIRED_COLUMNS } from "~/utils/purchase-csv-columns";

type ToolProps = { actionUrl: string; fallback?: AdminActionData | null };

/** A tool's refusal, with the details some operations add (docs/api.md). */
function Refusal({ error, details }: { error?: string | null; details?: string }) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert">
      {error}
      {details ? ` ${details}` : null}
    </p>
  );
}

/**
 * A code search's answer: the number, whether its stamp verified, the account (email, and a link
 * to its user editor) and that user's matching downloads, each with the version downloaded.
 */
function CodeSearchResultView({ result }: { result: CodeSearchData }) {
  const { user } = result;
  return (
    <div className="code-search-result" data-testid="code-search-result">
      <p>
        Number <strong>{result.number}</strong>:{" "}
        <Link to={adminHref({ search: user.email ?? String(result.number), user: user.id })} data-testid="trace-user">
          {user.username || user.email || `No. ${result.number}`}
        </Link>
        {user.email && user.email !== user.username ? <> ({user.email})</> : null}, {result.downloads.length} matching download
        {result.downloads.length === 1 ? "" : "s"}.
      </p>
      <p data-testid="trace-verdict" className="muted">
        {result.stamp === "verified" ? ADMIN_MESSAGES.stampVerified : ADMIN_MESSAGES.stampUntagged}
      </p>
      {result.downloads.length > 0 ? (
        <DataTable
          label="Downloads with this code"
          rows={result.downloads}
          rowKey={(download) => download._id}
          columns={[
            { header: "Post", cell: (download) => download.postTitle },
            { header: "Version", cell: (download) => download.version },
            { header: "Date", cell: (download) => formatDay(download.date) },
            { header: "Post id", cell: (download) => download.postId, className: "admin-mono" },
          ]}
        />
      ) : null}
    </div>
  );
}

export function CodeSearch({ actionUrl, fallback }: ToolProps) {
  const fetcher = useFetcher<AdminActionData>();
  const id = useId();
  const answer = useIntentAnswer(fetcher, fallback, "search-by-code");
  // A leaked ZIP goes to the same action with its intent in the address: the body streams (only its end is read).
  const traceAnswer = useIntentAnswer(fetcher, fallback, "trace-zip");
  const traceUrl = `${actionUrl}${actionUrl.includes("?") ? "&" : "?"}intent=trace-zip`;
  const busy = fetcher.state !== "idle";
  const result = answer?.result ?? traceAnswer?.result;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Code search</h2>
      <p className="muted">Find who downloaded a leaked post: the leak-trace number and a word of the post title.</p>
      <fetcher.Form method="post" action={actionUrl} className="admin-code-form" noValidate>
        <input type="hidden" name="intent" value="search-by-code" />
        <div className="field">
          <label htmlFor={`${id}-code`}>Code</label>
          <input id={`${id}-code`} name="code" type="text" inputMode="numeric" defaultValue={answer?.values?.code} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-keyword`}>Keyword</label>
          <input id={`${id}-keyword`} name="keyword" type="text" defaultValue={answer?.values?.keyword} />
        </div>
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Searching..." : "Search"}
        </button>
      </fetcher.Form>
      <p className="muted" id={`${id}-zip-hint`}>
        Or drop the leaked ZIP: its number is read from the archive comment of a paid download. The file is read, not stored.
      </p>
      <fetcher.Form method="post" action={traceUrl} encType="multipart/form-data" className="admin-trace-form" noValidate>
        <FileDrop id={`${id}-zip`} name="file" label="Leaked ZIP" accept=".zip,application/zip" describedBy={`${id}-zip-hint`} />
        <button type="submit" className="button-secondary" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Reading..." : "Find its downloader"}
        </button>
      </fetcher.Form>
      <div aria-live="polite">
        <Refusal error={answer?.error ?? traceAnswer?.error} />
        {traceAnswer?.traced ? (
          <p data-testid="trace-number">
            {traceAnswer.traced.fileName} {traceAnswer.traced.stamp === "forged" ? "claims" : "carries"} leak-trace number{" "}
            <strong>{traceAnswer.traced.number}</strong>
            {traceAnswer.traced.stamp === "forged" ? ", but its stamp does not verify." : "."}
          </p>
        ) : null}
        {result ? <CodeSearchResultView result={result} /> : null}
      </div>
    </section>
  );
}

/** The CSV purchase import: the file goes to the /admin action as a multipart post (20 MiB at most). */
export function PurchaseImport({ actionUrl, fallback }: ToolProps) {
  const fetcher = useFetcher<AdminActionData>();
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  // The page's own checks before uploading, in the same words as the action's.
  const [checked, setChecked] = useState<string | null>(null);
  const answer = useIntentAnswer(fetcher, fallback, "import-purchases", (data) =>
    data.report ? `Imported ${data.report.imported} purchase${data.report.imported === 1 ? "" : "s"}.` : null,
  );
  const busy = fetcher.state !== "idle";
  const shown = checked ? null : answer;

  // Cleared once, when the import's answer arrives (not when the fetcher next turns idle, which
  // would also wipe a file chosen while the page was still reloading its data).
  useEffect(() => {
    // A form reset also tells the file picker to forget the chosen file's name.
    if (fetcher.data?.intent === "import-purchases" && "report" in fetcher.data) inputRef.current?.form?.reset();
  }, [fetcher.data]);

  function check(event: React.FormEvent<HTMLFormElement>) {
    const file = inputRef.current?.files?.[0];
    const problem = !file ? ADMIN_MESSAGES.selectFile : !isPurchaseCsvName(file.name) ? ADMIN_MESSAGES.csvOnly : null;
    setChecked(problem);
    if (!problem) return;
    event.preventDefault();
    showToast({ type: "error", message: problem });
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import purchases</h2>
      <p className="muted" id={`${id}-hint`}>
        The shop&apos;s transactions export (.csv). Rows already imported are counted as duplicates. Dates in the DateTime (UTC) column: MM/DD/YYYY HH:MM:SS
        (Ko-fi&apos;s export) or YYYY-MM-DD HH:MM:SS, in UTC.
      </p>
      <p className="muted admin-csv-columns" id={`${id}-columns`} data-testid="import-columns">
        Required columns:{" "}
        {PURCHASE_CSV_REQUIRED_COLUMNS.map((column, index) => (
          <span key={column}>
            {index > 0 ? ", " : null}
            <code>{column}</code>
          </span>
        ))}
        . Also read when present:{" "}
        {PURCHASE_CSV_OPTIONAL_COLUMNS.map((column, index) => (
          <span key={column}>
            {index > 0 ? ", " : null}
            <code>{column}</code>
          </span>
        ))}
        . <code>Item</code> names what was bought: the shop item&apos;s address (…/s/<var>code</var>), its code, or the post&apos;s title (or give it in{" "}
        <code>Reference</code>). Only rows whose TransactionType is Shop Order are imported. Commas, semicolons or tabs may separate the fields.
      </p>
      <fetcher.Form method="post" action={actionUrl} encType="multipart/form-data" onSubmit={check} noValidate>
        <FileDrop ref={inputRef} id={`${id}-file`} name="file" label="CSV file" accept=".csv,text/csv" describedBy={`${id}-hint ${id}-columns`} />
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Importing..." : "Import"}
        </button>
      </fetcher.Form>
      {busy ? (
        // A fetcher reports no byte counts: the bar runs until the action answers.
        <div className="admin-progress">
          <label htmlFor={`${id}-progress`}>Upload progress</label>
          <progress id={`${id}-progress`} />
        </div>
      ) : null}
      <div aria-live="polite">
        <Refusal error={checked ?? shown?.error} details={shown?.error ? shown.details : undefined} />
        {shown?.report ? (
          <div data-testid="import-report">
            <p>
              Imported: <strong>{shown.report.imported}</strong> · Duplicates: <strong>{shown.report.duplicates}</strong> · Rejected:{" "}
              <strong>{shown.report.rejected.length}</strong>
            </p>
            {shown.report.rejected.length > 0 ? (
              <DataTable
                label="Rejected rows"
                rows={shown.report.rejected}
                rowKey={(rejected) => rejected.row}
                columns={[
                  { header: "Row", cell: (rejected) => rejected.row },
                  { header: "Reason", cell: (rejected) => rejected.reason },
                ]}
              />
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}

export type SyncRunRow = {
  id: string;
  trigger: string;
  status: string;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
  summary: unknown;
};

const SUMMARY_LABELS: [string, string][] = [
  ["pages", "Pages"],
  ["members", "Members"],
  ["matched", "Matched users"],
  ["tierChanges", "Tier changes"],
  ["tiersCleared", "Tiers cleared"],
  ["rateLimitRetries", "Rate-limit retries"],
];

function summaryText(summary: unknown): string {
  if (!summary || typeof summary !== "object") return "—";
  const values = summary as Record<string, unknown>;
  const parts = SUMMARY_LABELS.filter(([key]) => typeof values[key] === "number").map(([key, label]) => `${label}: ${String(values[key])}`);
  return parts.length > 0 ? parts.join(" · ") : "—";
}

/** Force interval: runs the support-platform sync now and shows what it did. */
export function ForceInterval({ actionUrl, runs, fallback }: ToolProps & { runs: SyncRunRow[] }) {
  const fetcher = useFetcher<AdminActionData>();
  const id = useId();
  const busy = fetcher.state !== "idle";
  const result = useIntentAnswer(fetcher, fallback, "force-interval", (data) => data.message ?? null);

  return (
    <section className="card admin-interval" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Interval job</h2>
      <p className="muted">Syncs support-platform memberships, tiers and pledge history, and recomputes early-supporter unlocks.</p>
      <fetcher.Form method="post" action={actionUrl}>
        <input type="hidden" name="intent" value="force-interval" />
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Running..." : "Force interval"}
        </button>
      </fetcher.Form>
      <div aria-live="polite" data-testid="interval-result">
        <Refusal error={result?.error} details={result?.details} />
        {result && !result.error && result.summary ? <p className="form-success">Done. {summaryText(result.summary)}</p> : null}
      </div>
      {runs.length > 0 ? (
        <>
          <h3>Latest runs</h3>
          <DataTable
            label="Latest runs"
            rows={runs}
            rowKey={(jobRun) => jobRun.id}
            columns={[
              { header: "Started", cell: (jobRun) => formatDayTime(jobRun.startedAt) },
              { header: "Trigger", cell: (jobRun) => jobRun.trigger },
              { header: "Status", cell: (jobRun) => jobRun.status },
              {
                header: "What it did",
                cell: (jobRun) => (
                  <>
                    {summaryText(jobRun.summary)}
                    {jobRun.error ? <span className="field-error"> {jobRun.error}</span> : null}
                  </>
                ),
              },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}

/**
 * Send update digests now: the digest job at once instead of at its next hourly check. The
 * action answers with a redirect whose toast says how many went out (also without JavaScript).
 */
export function SendDigests({ actionUrl }: { actionUrl: string }) {
  const fetcher = useFetcher<AdminActionData>();
  const id = useId();
  const busy = fetcher.state !== "idle";
  return (
    <section className="card admin-digests" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Update digests</h2>
      <p className="muted">
        Mails every account that asked for update mails what is new for it, now rather than at the job&apos;s next run. Nobody gets an item twice.
      </p>
      <fetcher.Form method="post" action={actionUrl} preventScrollReset>
        <input type="hidden" name="intent" value="send-digests" />
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Sending..." : "Send update digests now"}
        </button>
      </fetcher.Form>
    </section>
  );
}
