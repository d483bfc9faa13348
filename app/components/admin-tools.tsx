// The admin's tools beside the user list: code search, the CSV purchase import and the interval job.
import { useFetcher, useRevalidator } from "@remix-run/react";
import { useId, useRef, useState } from "react";
import { formatDate } from "~/components/admin-user-editor";
import { FileDrop } from "~/components/file-drop";
import { showToast } from "~/components/toaster";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";

export type CodeSearchData = {
  number: number;
  downloads: { _id: string; postId: string; postTitle: string; username: string; date: string }[];
};

export type AdminActionData =
  | { intent: "search-by-code"; error: string; result?: undefined; values?: { code: string; keyword: string } }
  | { intent: "search-by-code"; result: CodeSearchData; error?: undefined; values?: { code: string; keyword: string } }
  | { intent: "import-purchases"; error: string; details?: string; report?: undefined }
  | { intent: "import-purchases"; report: ImportReportData; error?: undefined }
  | { intent: "save-user" | "add-shop-email" | "verify-shop-email"; error: string }
  | { intent: "force-interval"; error?: string; details?: string; summary?: unknown }
  | { intent: "unlock-objects"; error?: string; message?: string };

export type ImportReportData = { imported: number; duplicates: number; rejected: { row: number; reason: string }[] };

export function CodeSearch({ actionUrl, fallback }: { actionUrl: string; fallback?: AdminActionData | null }) {
  const fetcher = useFetcher<AdminActionData>();
  const id = useId();
  const data = (fetcher.data as AdminActionData | undefined) ?? (fallback?.intent === "search-by-code" ? fallback : null);
  const answer = data?.intent === "search-by-code" ? data : null;
  const busy = fetcher.state !== "idle";
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
      <div aria-live="polite">
        {answer?.error ? (
          <p className="form-error" role="alert">
            {answer.error}
          </p>
        ) : null}
        {answer?.result ? (
          <div data-testid="code-search-result">
            <p>
              Number <strong>{answer.result.number}</strong>: {answer.result.downloads.length} matching download
              {answer.result.downloads.length === 1 ? "" : "s"}.
            </p>
            {answer.result.downloads.length > 0 ? (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Post title</th>
                      <th scope="col">Post id</th>
                      <th scope="col">Username</th>
                      <th scope="col">Date</th>
                      <th scope="col">Download id</th>
                    </tr>
                  </thead>
                  <tbody>
                    {answer.result.downloads.map((download) => (
                      <tr key={download._id}>
                        <td>{download.postTitle}</td>
                        <td>{download.postId}</td>
                        <td>{download.username}</td>
                        <td>{formatDate(download.date)}</td>
                        <td className="admin-mono">{download._id}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}

/**
 * The CSV purchase import. With JavaScript the file goes to /api/admin/import-purchases by
 * XMLHttpRequest (for upload progress); without it, the form posts to the /admin action.
 */
export function PurchaseImport({ actionUrl, fallback }: { actionUrl: string; fallback?: AdminActionData | null }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [clientResult, setClientResult] = useState<AdminActionData | null>(null);
  const result = clientResult ?? (fallback?.intent === "import-purchases" ? fallback : null);
  const answer = result?.intent === "import-purchases" ? result : null;

  function fail(message: string, details?: string) {
    setClientResult({ intent: "import-purchases", error: message, details });
    showToast({ type: "error", message });
  }

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const file = inputRef.current?.files?.[0];
    if (!file) return fail(ADMIN_MESSAGES.selectFile);
    if (!file.name.toLowerCase().endsWith(".csv")) return fail(ADMIN_MESSAGES.csvOnly);
    const body = new FormData();
    body.append("file", file);
    const request = new XMLHttpRequest();
    request.open("POST", "/api/admin/import-purchases");
    request.withCredentials = true;
    request.responseType = "json";
    request.upload.onprogress = (progressEvent) => {
      if (progressEvent.lengthComputable) setProgress(Math.round((progressEvent.loaded / progressEvent.total) * 100));
    };
    request.onload = () => {
      setProgress(null);
      const response = (request.response ?? {}) as Partial<ImportReportData> & { error?: string; details?: string };
      if (request.status >= 200 && request.status < 300 && typeof response.imported === "number") {
        const report = { imported: response.imported, duplicates: response.duplicates ?? 0, rejected: response.rejected ?? [] };
        setClientResult({ intent: "import-purchases", report });
        showToast({ type: "success", message: `Imported ${report.imported} purchase${report.imported === 1 ? "" : "s"}.` });
        inputRef.current?.form?.reset();
      } else {
        fail(response.error ?? ADMIN_MESSAGES.importFailed, response.details);
      }
    };
    request.onerror = () => {
      setProgress(null);
      fail(ADMIN_MESSAGES.networkError);
    };
    setClientResult(null);
    setProgress(0);
    request.send(body);
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import purchases</h2>
      <p className="muted" id={`${id}-hint`}>
        The shop&apos;s transactions export (.csv). Rows already imported are counted as duplicates. Dates in the DateTime (UTC)
        column: MM/DD/YYYY HH:MM:SS (Ko-fi&apos;s export) or YYYY-MM-DD HH:MM:SS, in UTC.
      </p>
      <form method="post" action={actionUrl} encType="multipart/form-data" onSubmit={submit} noValidate>
        <input type="hidden" name="intent" value="import-purchases" />
        <FileDrop ref={inputRef} id={`${id}-file`} name="file" label="CSV file" accept=".csv,text/csv" describedBy={`${id}-hint`} />
        <button type="submit" className="button" disabled={progress !== null} aria-busy={progress !== null || undefined}>
          {progress !== null ? "Importing..." : "Import"}
        </button>
      </form>
      {progress !== null ? (
        <div className="admin-progress">
          <label htmlFor={`${id}-progress`}>Upload progress</label>
          <progress id={`${id}-progress`} max={100} value={progress}>
            {progress}%
          </progress>
          <span>{progress}%</span>
        </div>
      ) : null}
      <div aria-live="polite">
        {answer?.error ? (
          <p className="form-error" role="alert">
            {answer.error}
            {answer.details ? ` ${answer.details}` : null}
          </p>
        ) : null}
        {answer?.report ? (
          <div data-testid="import-report">
            <p>
              Imported: <strong>{answer.report.imported}</strong> · Duplicates: <strong>{answer.report.duplicates}</strong> · Rejected:{" "}
              <strong>{answer.report.rejected.length}</strong>
            </p>
            {answer.report.rejected.length > 0 ? (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Row</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {answer.report.rejected.map((rejected) => (
                      <tr key={rejected.row}>
                        <td>{rejected.row}</td>
                        <td>{rejected.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
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

const runTime = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });

/**
 * Force interval: runs the support-platform sync now and shows what it did. With JavaScript it
 * calls POST /api/admin/force-interval; without, the form posts to the /admin action.
 */
export function ForceInterval({ actionUrl, runs, fallback }: { actionUrl: string; runs: SyncRunRow[]; fallback?: AdminActionData | null }) {
  const id = useId();
  const revalidator = useRevalidator();
  const [busy, setBusy] = useState(false);
  const [clientResult, setClientResult] = useState<{ error?: string; details?: string; summary?: unknown } | null>(null);
  const fromServer = fallback?.intent === "force-interval" ? fallback : null;
  const result = clientResult ?? fromServer;

  async function run(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setClientResult(null);
    try {
      const response = await fetch("/api/admin/force-interval", { method: "POST", credentials: "same-origin" });
      const body = (await response.json().catch(() => ({}))) as { message?: string; error?: string; details?: string; summary?: unknown };
      if (!response.ok) {
        setClientResult({ error: body.error ?? ADMIN_MESSAGES.forceIntervalFailed, details: body.details, summary: body.summary });
        showToast({ type: "error", message: body.error ?? ADMIN_MESSAGES.forceIntervalFailed });
      } else {
        setClientResult({ summary: body.summary });
        showToast({ type: "success", message: body.message ?? "Interval job completed." });
      }
      revalidator.revalidate();
    } catch {
      setClientResult({ error: ADMIN_MESSAGES.networkError });
      showToast({ type: "error", message: ADMIN_MESSAGES.networkError });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card admin-interval" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Interval job</h2>
      <p className="muted">Syncs support-platform memberships, tiers and pledge history, and recomputes early-supporter unlocks.</p>
      <form method="post" action={actionUrl} onSubmit={run}>
        <input type="hidden" name="intent" value="force-interval" />
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Running..." : "Force interval"}
        </button>
      </form>
      <div aria-live="polite" data-testid="interval-result">
        {result?.error ? (
          <p className="form-error" role="alert">
            {result.error}
            {result.details ? ` ${result.details}` : null}
          </p>
        ) : null}
        {result && !result.error && result.summary ? <p className="form-success">Done. {summaryText(result.summary)}</p> : null}
      </div>
      {runs.length > 0 ? (
        <>
          <h3>Latest runs</h3>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Started (UTC)</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Status</th>
                  <th scope="col">What it did</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((jobRun) => (
                  <tr key={jobRun.id}>
                    <td>{runTime.format(new Date(jobRun.startedAt))}</td>
                    <td>{jobRun.trigger}</td>
                    <td>{jobRun.status}</td>
                    <td>
                      {summaryText(jobRun.summary)}
                      {jobRun.error ? <span className="field-error"> {jobRun.error}</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
