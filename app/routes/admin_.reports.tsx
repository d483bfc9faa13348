// /admin/reports: the bug reports' triage list (docs/product.md#bug-reports). Filter by state and
// post; each report shows its reporter (admins only), the version and game patch it was reported
// on, its "me too" count, and a form that moves it (new, confirmed, fixed in a version, won't fix).
// Effective admins only, enforced here and in the model. Plain forms: the filter is a GET, a change
// posts here and comes back with a toast; with JavaScript each change goes through a fetcher.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useFetcher, useLoaderData } from "@remix-run/react";
import { useId } from "react";
import { SubmitButton } from "~/components/form";
import { BUG_REPORT_MESSAGES, fixVersionChoices, listBugReports, postsWithReports, setBugReportState, type TriageReport } from "~/models/bug-report.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { redirectWithSuccess } from "~/toast.server";
import { BUG_STATE_WORDS, BUG_STATES, bugStateSchema } from "~/utils/bug-report-schemas";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { formInput, parseForm, text } from "~/utils/form-fields";
import { z } from "zod";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Bug reports · Admin · Creator Library" }];

export const headers = personalPageHeaders;

const NO_STORE = { "Cache-Control": "private, no-store" };

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const search = new URL(request.url).searchParams;
  const { filter, reports } = await listBugReports(admin, { state: search.get("state") ?? undefined, post: search.get("post") ?? undefined });
  const [posts, versions] = await Promise.all([postsWithReports(admin), fixVersionChoices(admin, [...new Set(reports.map((report) => report.postId))])]);
  return data({ filter, reports, posts, versions }, { headers: NO_STORE });
}

type ActionData = { ok: false; reportId: string; message: string };

/** Which report the form acts on, and the list to go back to. */
const reportFormSchema = z.object({ reportId: text, back: text });

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const form = await readPageForm(request);
  const { reportId, back } = parseForm(form, reportFormSchema);
  try {
    // The state and fixed version as posted: the model checks them with the schema of PUT /api/admin/reports/{id}.
    await setBugReportState(admin, reportId, formInput(form, bugStateSchema));
    return redirectWithSuccess(back.startsWith("/admin/reports") ? back : "/admin/reports", BUG_REPORT_MESSAGES.stateSaved, { status: 303 });
  } catch (error) {
    const refusal = formRefusal(error, BUG_REPORT_MESSAGES.failed);
    return data<ActionData>({ ok: false, reportId, message: refusal.message }, { status: refusal.status, headers: { ...NO_STORE, ...refusal.headers } });
  }
}

function when(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

function ReportCard({ report, versions, back }: { report: TriageReport; versions: { id: string; label: string }[]; back: string }) {
  const fetcher = useFetcher<ActionData>({ key: `triage-${report.id}` });
  const id = useId();
  const error = fetcher.data && fetcher.data.reportId === report.id ? fetcher.data.message : null;
  return (
    <li className="card triage-report" data-testid="triage-report">
      <h2 className="triage-title">{report.title}</h2>
      <p>
        <span className="badge">{report.stateWords}</span> on <Link to={`/library/${encodeURIComponent(report.postId)}`}>{report.postTitle}</Link> · version{" "}
        {report.version}
        {report.gamePatch ? ` · game patch ${report.gamePatch}` : ""} · {report.meToos === 1 ? "1 \u201cme too\u201d" : `${report.meToos} \u201cme too\u201ds`}
      </p>
      <p className="muted">
        Reported by <Link to={`/admin?user=${encodeURIComponent(report.reporter.id)}`}>{report.reporter.name}</Link>
        {report.reporter.email ? ` (${report.reporter.email})` : ""} on {when(report.reportedAt)}
        {report.fixedAt ? ` · fixed ${when(report.fixedAt)}` : ""}
      </p>
      <p className="triage-body">{report.body}</p>
      <fetcher.Form method="post" action="/admin/reports" className="triage-form">
        <input type="hidden" name="reportId" value={report.id} />
        <input type="hidden" name="back" value={back} />
        <div className="field">
          <label htmlFor={`${id}-state`}>State</label>
          <select id={`${id}-state`} name="state" defaultValue={report.state}>
            {BUG_STATES.map((state) => (
              <option key={state} value={state}>
                {BUG_STATE_WORDS[state]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-version`}>Fixed in (for Fixed)</label>
          <select
            id={`${id}-version`}
            name="fixedVersionId"
            defaultValue={report.fixedIn?.versionId ?? versions[0]?.id ?? ""}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
          >
            <option value="">—</option>
            {versions.map((version) => (
              <option key={version.id} value={version.id}>
                {version.label}
              </option>
            ))}
          </select>
        </div>
        <SubmitButton pending={fetcher.state !== "idle"} pendingLabel="Saving..." aria-label={`Save the state of ${report.title}`}>
          Save
        </SubmitButton>
        {error ? (
          <p id={`${id}-error`} className="form-error" role="alert">
            {error}
          </p>
        ) : null}
      </fetcher.Form>
    </li>
  );
}

export default function AdminReports() {
  const { filter, reports, posts, versions } = useLoaderData<typeof loader>();
  const back = `/admin/reports?state=${filter.state}${filter.post ? `&post=${encodeURIComponent(filter.post)}` : ""}`;
  return (
    <div className="admin-page stack">
      <p>
        <Link to="/admin">Back to the admin area</Link>
      </p>
      <h1>Bug reports</h1>
      <Form method="get" action="/admin/reports" className="card triage-filter">
        <div className="field">
          <label htmlFor="triage-state">State</label>
          <select id="triage-state" name="state" defaultValue={filter.state}>
            <option value="OPEN">Open (new and confirmed)</option>
            {BUG_STATES.map((state) => (
              <option key={state} value={state}>
                {BUG_STATE_WORDS[state]}
              </option>
            ))}
            <option value="ALL">All</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="triage-post">Post</label>
          <select id="triage-post" name="post" defaultValue={filter.post ?? ""}>
            <option value="">All posts</option>
            {posts.map((post) => (
              <option key={post.postId} value={post.postId}>
                {post.title}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button-secondary">
          Show
        </button>
      </Form>
      {reports.length === 0 ? (
        <p className="muted">No reports match.</p>
      ) : (
        <ul className="triage-list">
          {reports.map((report) => (
            <ReportCard key={report.id} report={report} versions={versions[report.postId] ?? []} back={back} />
          ))}
        </ul>
      )}
    </div>
  );
}
