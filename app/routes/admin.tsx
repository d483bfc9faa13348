// /admin: user search and list, the user editor, code search, purchase import and the audit log.
// Admins only; everyone else is redirected to /.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, isRouteErrorResponse, Link, useActionData, useLoaderData, useLocation, useNavigation, useRouteError, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { AuditLog } from "~/components/admin-audit-log";
import { CodeSearch, ForceInterval, PurchaseImport, type AdminActionData } from "~/components/admin-tools";
import { AdminUserEditor, providerLabels } from "~/components/admin-user-editor";
import { EmailText } from "~/components/email-text";
import { ErrorPage } from "~/components/error-page";
import { InsightsEntry } from "~/components/insights/admin-entry";
import { searchDownloadsByCode } from "~/models/admin-search.server";
import {
  addShopEmailAsAdmin,
  AdminUserError,
  getAdminUser,
  listPickerPosts,
  searchUsers,
  updateUserAsAdmin,
  verifyShopEmailAsAdmin,
} from "~/models/admin-users.server";
import { listRecentAuditRows, recordAudit } from "~/models/audit.server";
import { recentSyncRuns, runIntervalSync } from "~/models/interval-sync.server";
import { importPurchasesCsv, PurchaseImportError } from "~/models/purchase.server";
import { requireAdmin } from "~/models/session.server";
import { listTiers } from "~/models/tier.server";
import { recomputeUnlocksForUser } from "~/models/unlocks.server";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { ADMIN_MESSAGES, codeSearchSchema, parseUserSearch, shopEmailSchema, userUpdateFromForm } from "~/utils/admin-schemas";
import { readUploadedFile } from "~/utils/upload.server";
import adminStyles from "~/styles/admin.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Admin · Creator Library" }];

const MAX_CSV_BYTES = 20 * 1024 * 1024;

/** The /admin address for a search page, optionally with a user open in the editor. */
function adminHref({ search, page, user }: { search?: string; page?: number; user?: string | null }): string {
  const params = new URLSearchParams();
  if (search) params.set("search", search);
  if (page && page > 1) params.set("page", String(page));
  if (user) params.set("user", user);
  const query = params.toString();
  return query ? `/admin?${query}` : "/admin";
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const query = parseUserSearch(params);
  const editId = params.get("user");
  const [list, audit, runs, editing] = await Promise.all([
    searchUsers(query),
    listRecentAuditRows(25),
    recentSyncRuns(5).then((jobRuns) =>
      jobRuns.map((jobRun) => ({
        id: jobRun.id,
        trigger: jobRun.trigger,
        status: jobRun.status,
        startedAt: jobRun.startedAt.toISOString(),
        finishedAt: jobRun.finishedAt?.toISOString() ?? null,
        error: jobRun.error,
        summary: jobRun.summary,
      })),
    ),
    editId
      ? Promise.all([getAdminUser(editId.slice(0, 64)), listPickerPosts(), listTiers()]).then(([user, posts, tiers]) =>
          user ? { user, posts, tiers } : { notFound: true as const },
        )
      : Promise.resolve(null),
  ]);
  return json({ query, list, audit, runs, editing });
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const url = new URL(request.url);
  const back = parseUserSearch(url.searchParams);

  // The CSV import without JavaScript: a multipart post.
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) {
    try {
      const file = await readUploadedFile(request, "file", { maxBytes: MAX_CSV_BYTES, missingMessage: ADMIN_MESSAGES.selectFile });
      if (!file.fileName.toLowerCase().endsWith(".csv")) {
        return json<AdminActionData>({ intent: "import-purchases", error: ADMIN_MESSAGES.csvOnly }, { status: 400 });
      }
      const report = await importPurchasesCsv(admin.id, file.bytes, file.fileName);
      return json<AdminActionData>({ intent: "import-purchases", report });
    } catch (error) {
      if (error instanceof Response) {
        const body = (await error.json().catch(() => ({}))) as { error?: string };
        return json<AdminActionData>({ intent: "import-purchases", error: body.error ?? ADMIN_MESSAGES.importFailed }, { status: error.status });
      }
      if (error instanceof PurchaseImportError) {
        return json<AdminActionData>({ intent: "import-purchases", error: ADMIN_MESSAGES.importFailed, details: error.message }, { status: 400 });
      }
      console.error(ADMIN_MESSAGES.importFailed, error);
      return json<AdminActionData>({ intent: "import-purchases", error: ADMIN_MESSAGES.importFailed }, { status: 500 });
    }
  }

  const form = await request.formData();
  const verifyEmail = form.get("verifyShopEmail");
  const intent = typeof verifyEmail === "string" && verifyEmail ? "verify-shop-email" : String(form.get("intent") ?? "");

  if (intent === "search-by-code") {
    const values = { code: String(form.get("code") ?? ""), keyword: String(form.get("keyword") ?? "") };
    const parsed = codeSearchSchema.safeParse(values);
    if (!parsed.success) {
      return json<AdminActionData>({ intent, error: parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.codeSearchRequired, values }, { status: 400 });
    }
    try {
      const result = await searchDownloadsByCode(parsed.data);
      if (!result) return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.userNotFound, values }, { status: 404 });
      return json<AdminActionData>({ intent, result, values });
    } catch (error) {
      console.error(ADMIN_MESSAGES.searchFailed, error);
      return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.searchFailed, values }, { status: 500 });
    }
  }

  if (intent === "force-interval") {
    try {
      // Same as POST /api/admin/force-interval: run now, audit what it did.
      const summary = await runIntervalSync({ trigger: "admin" });
      await recordAudit({ actorId: admin.id, action: "interval.force", targetType: "job", targetId: summary.jobRunId, after: summary });
      if (summary.status !== "succeeded") {
        return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.forceIntervalFailed, details: summary.error, summary }, { status: summary.status === "skipped" ? 409 : 502 });
      }
      return json<AdminActionData>({ intent, summary });
    } catch (error) {
      console.error(ADMIN_MESSAGES.forceIntervalFailed, error);
      return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.forceIntervalFailed }, { status: 500 });
    }
  }

  if (intent === "unlock-objects") {
    const userId = String(form.get("userId") ?? "");
    if (!userId) return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.noUserSelected }, { status: 400 });
    try {
      const result = await recomputeUnlocksForUser(admin.id, userId);
      if (!result) return redirectWithError(adminHref(back), ADMIN_MESSAGES.userNotFound);
      return redirectWithSuccess(adminHref({ ...back, user: userId }), `Unlocked objects updated. Added ${result.added}, removed ${result.removed}.`);
    } catch (error) {
      console.error(ADMIN_MESSAGES.unlockFailed, error);
      return redirectWithError(adminHref({ ...back, user: userId }), ADMIN_MESSAGES.unlockFailed);
    }
  }

  if (intent === "save-user" || intent === "add-shop-email" || intent === "verify-shop-email") {
    const userId = String(form.get("userId") ?? "");
    if (!userId) return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.noUserSelected }, { status: 400 });
    try {
      if (intent === "save-user") {
        const parsed = userUpdateFromForm(form);
        if (!parsed.success) return json<AdminActionData>({ intent, error: parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.updateUserFailed }, { status: 400 });
        await updateUserAsAdmin(admin.id, userId, parsed.data);
        // Save closes the editor.
        return redirectWithSuccess(adminHref(back), { message: ADMIN_MESSAGES.userUpdated });
      }
      const parsed = shopEmailSchema.safeParse(intent === "add-shop-email" ? form.get("newShopEmail") ?? "" : verifyEmail);
      if (!parsed.success) return json<AdminActionData>({ intent, error: parsed.error.issues[0]?.message ?? ADMIN_MESSAGES.shopEmailInvalid }, { status: 400 });
      if (intent === "add-shop-email") {
        await addShopEmailAsAdmin(admin.id, userId, parsed.data);
        return redirectWithSuccess(adminHref({ ...back, user: userId }), { message: "Ko-fi email added as unverified." });
      }
      await verifyShopEmailAsAdmin(admin.id, userId, parsed.data);
      return redirectWithSuccess(adminHref({ ...back, user: userId }), { message: "Ko-fi email marked as verified." });
    } catch (error) {
      if (error instanceof AdminUserError) return json<AdminActionData>({ intent, error: error.message }, { status: error.status });
      console.error(ADMIN_MESSAGES.updateUserFailed, error);
      return json<AdminActionData>({ intent, error: ADMIN_MESSAGES.updateUserFailed }, { status: 500 });
    }
  }

  return json({ intent, error: "Unknown action." }, { status: 400 });
}

export default function AdminPage() {
  const { query, list, audit, runs, editing } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as AdminActionData | undefined;
  const location = useLocation();
  const navigation = useNavigation();
  const submit = useSubmit();
  const searchTimer = useRef<ReturnType<typeof setTimeout>>();
  const actionUrl = `/admin${location.search}`;
  const pages = Math.max(1, Math.ceil(list.total / list.pageSize));
  const editFormError =
    actionData && (actionData.intent === "save-user" || actionData.intent === "add-shop-email" || actionData.intent === "verify-shop-email")
      ? (actionData.error ?? null)
      : null;
  const searching = navigation.state === "loading" && navigation.location?.pathname === "/admin";

  useEffect(() => () => clearTimeout(searchTimer.current), []);

  return (
    <div className="admin-page">
      <h1 className="page-title">Admin</h1>

      <section className="card" aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        <Form method="get" action="/admin" role="search" className="admin-search" preventScrollReset>
          <div className="field">
            <label htmlFor="user-search">Search users</label>
            <input
              id="user-search"
              type="search"
              name="search"
              defaultValue={query.search}
              placeholder="Email, name, Ko-fi email, Patreon id or number"
              autoComplete="off"
              onChange={(event) => {
                // Search as the admin types, without a history entry per keystroke.
                const form = event.currentTarget.form;
                clearTimeout(searchTimer.current);
                searchTimer.current = setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), 300);
              }}
            />
          </div>
          <button type="submit" className="button">
            Search
          </button>
        </Form>
        <p className="muted" aria-live="polite">
          {searching ? "Searching..." : `${list.total} user${list.total === 1 ? "" : "s"}${query.search ? ` matching "${query.search}"` : ""} · page ${list.page} of ${pages}`}
        </p>
        <div className="table-scroll admin-users-box">
          <table className="admin-users" data-testid="user-list">
            <thead>
              <tr>
                <th scope="col">No.</th>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Verified</th>
                <th scope="col">Sign-in</th>
                <th scope="col">Tier</th>
                <th scope="col">Flags</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.users.map((user) => (
                <tr key={user._id} aria-current={editing && "user" in editing && editing.user._id === user._id ? "true" : undefined}>
                  <td data-label="No.">{user.number}</td>
                  <td data-label="Name">{user.fullName ?? <span className="muted">—</span>}</td>
                  <td data-label="Email" className="admin-nowrap">
                    {user.email ? <EmailText email={user.email} /> : <span className="muted">—</span>}
                  </td>
                  <td data-label="Verified">{user.mailVerified ? "Yes" : "No"}</td>
                  <td data-label="Sign-in">{providerLabels(user).join(", ") || "—"}</td>
                  <td data-label="Tier">{user.current_tier_title ?? "None"}</td>
                  <td data-label="Flags">
                    <span className="admin-flags">
                      {user.isAdmin ? <span className="badge badge-new">Admin</span> : null}
                      {user.canBeAdmin && !user.isAdmin ? <span className="badge">Can be admin</span> : null}
                      {user.restricted ? <span className="badge admin-badge-danger">Restricted</span> : null}
                    </span>
                  </td>
                  <td className="admin-users-actions">
                    <Link className="button-secondary admin-small" to={adminHref({ search: query.search, page: query.page, user: user._id })} preventScrollReset>
                      Edit<span className="visually-hidden"> {user.fullName ?? user.email ?? user.number}</span>
                    </Link>
                  </td>
                </tr>
              ))}
              {list.users.length === 0 ? (
                <tr>
                  <td colSpan={8} className="muted">
                    No users found.
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
        {pages > 1 ? (
          <nav className="button-row admin-pages" aria-label="User pages">
            {list.page > 1 ? (
              <Link className="button-secondary" to={adminHref({ search: query.search, page: list.page - 1 })} preventScrollReset>
                Previous
              </Link>
            ) : null}
            <span>
              Page {list.page} of {pages}
            </span>
            {list.page < pages ? (
              <Link className="button-secondary" to={adminHref({ search: query.search, page: list.page + 1 })} preventScrollReset>
                Next
              </Link>
            ) : null}
          </nav>
        ) : null}
      </section>

      {editing ? (
        "user" in editing ? (
          <AdminUserEditor
            key={editing.user._id}
            user={editing.user}
            posts={editing.posts}
            tiers={editing.tiers}
            actionUrl={actionUrl}
            closeHref={adminHref({ search: query.search, page: query.page })}
            formError={editFormError}
          />
        ) : (
          <section className="card" role="alert">
            <p className="form-error">{ADMIN_MESSAGES.userNotFound}</p>
            <Link to={adminHref({ search: query.search, page: query.page })}>Close</Link>
          </section>
        )
      ) : null}

      <div className="admin-tools">
        <CodeSearch actionUrl={actionUrl} fallback={actionData ?? null} />
        <PurchaseImport actionUrl={actionUrl} fallback={actionData ?? null} />
        <ForceInterval actionUrl={actionUrl} runs={runs} fallback={actionData ?? null} />
      </div>

      <InsightsEntry />

      <AuditLog entries={audit} userHref={(userId) => adminHref({ search: query.search, page: query.page, user: userId })} />
    </div>
  );
}

/** The page could not load (database down, ...): the spec's message instead of a blank page. */
export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  if (!isRouteErrorResponse(error)) console.error(error);
  return <ErrorPage status={status} title="Admin" message={ADMIN_MESSAGES.fetchUsersFailed} />;
}
