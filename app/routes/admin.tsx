// /admin: user search and list, the user editor, code search, purchase import, the interval job,
// sending the update digests now, and the audit log.
// Admins only; everyone else is redirected to /. Every form posts to this route's action, with
// or without JavaScript (app/admin-actions.server.ts has one function per intent).
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { isRouteErrorResponse, Link, useActionData, useLoaderData, useLocation, useRouteError } from "@remix-run/react";
import { editUser, forceInterval, importPurchases, searchByCode, sendDigests, traceLeakedZip, unlockObjects } from "~/admin-actions.server";
import { AuditLog } from "~/components/admin-audit-log";
import { CodeSearch, ForceInterval, PurchaseImport, SendDigests } from "~/components/admin-tools";
import { AdminUserEditor } from "~/components/admin-user-editor";
import type { AdminActionData } from "~/components/admin/action-data";
import { adminHref } from "~/components/admin/admin-href";
import { UserList } from "~/components/admin/user-list";
import { ErrorPage, isUnavailable, logInBrowser, SITE_UNAVAILABLE_HINT, SITE_UNAVAILABLE_TITLE } from "~/components/error-page";
import { InsightsEntry } from "~/components/insights/admin-entry";
import { getAdminUser, listPickerPosts, searchUsers } from "~/models/admin-users.server";
import { listAuditPage } from "~/models/audit.server";
import { parseAuditFilter } from "~/utils/audit-log";
import { recentSyncRuns } from "~/models/interval-sync.server";
import { requireAdmin } from "~/session-guards.server";
import { listTiers } from "~/models/tier.server";
import { ADMIN_MESSAGES, adminIntentSchema, parseUserSearch } from "~/utils/admin-schemas";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import adminStyles from "~/styles/admin.css?url";
import { adminUploads } from "~/request-policy.server";
import { parseForm } from "~/utils/form-fields";

// Admins drop a leaked ZIP (as large as a post file) or a purchases CSV here.
export function requestPolicy() {
  return adminUploads("post-file");
}

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Admin · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const query = parseUserSearch(params);
  const editId = params.get("user");
  const auditFilter = parseAuditFilter(params);
  const [list, audit, runs, editing] = await Promise.all([
    searchUsers(query),
    listAuditPage(auditFilter),
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
  return data({ query, list, audit: { ...audit, filter: auditFilter }, runs, editing }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const back = parseUserSearch(new URL(request.url).searchParams);

  // A leaked ZIP for the code search streams in too: its intent is in the address (body limit, server/security.ts).
  if (new URL(request.url).searchParams.get("intent") === "trace-zip") return traceLeakedZip(request);
  // The CSV import is the other multipart post: its file streams in, so it is told by its type.
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) return importPurchases(admin.id, request);

  const form = await readPageForm(request);
  const intent = parseForm(form, adminIntentSchema);
  switch (intent) {
    case "search-by-code":
      return searchByCode(form);
    case "force-interval":
      return forceInterval(admin.id);
    case "send-digests":
      return sendDigests(admin.id, back);
    case "unlock-objects":
      return unlockObjects(admin.id, form, back);
    case "save-user":
    case "add-shop-email":
    case "verify-shop-email":
    case "remove-shop-email":
      return editUser(admin.id, intent, form, back);
    default:
      return data<AdminActionData>({ intent, error: "Unknown action." }, { status: 400 });
  }
}

export default function AdminPage() {
  const { query, list, audit, runs, editing } = useLoaderData<typeof loader>();
  const actionData: AdminActionData | undefined = useActionData<typeof action>();
  const location = useLocation();
  // Without the `intent` a leaked-ZIP post leaves in the address (the other forms name theirs in the body).
  const actionSearch = new URLSearchParams(location.search);
  actionSearch.delete("intent");
  const actionUrl = `/admin${actionSearch.size > 0 ? `?${actionSearch.toString()}` : ""}`;
  const closeHref = adminHref({ search: query.search, page: query.page });
  const editAnswer = actionData && ["save-user", "add-shop-email", "verify-shop-email", "remove-shop-email"].includes(actionData.intent) ? actionData : null;
  const editFormError = editAnswer?.error ?? null;
  // A shop email changed without JavaScript: what the admin had typed elsewhere, drawn again unsaved.
  const posted = editAnswer && "posted" in editAnswer ? editAnswer.posted : undefined;
  const editMessage = editAnswer && "message" in editAnswer && typeof editAnswer.message === "string" ? editAnswer.message : null;

  return (
    <div className="admin-page">
      <h1 className="page-title">Admin</h1>

      <UserList query={query} list={list} editingId={editing && !editing.notFound ? editing.user._id : null} />

      {editing ? (
        !editing.notFound ? (
          <AdminUserEditor
            key={editing.user._id}
            user={editing.user}
            posts={editing.posts}
            tiers={editing.tiers}
            actionUrl={actionUrl}
            closeHref={closeHref}
            formError={editFormError}
            formMessage={editMessage}
            posted={posted ?? undefined}
          />
        ) : (
          <section className="card" role="alert">
            <p className="form-error">{ADMIN_MESSAGES.userNotFound}</p>
            <Link to={closeHref}>Close</Link>
          </section>
        )
      ) : null}

      <div className="admin-tools">
        <CodeSearch actionUrl={actionUrl} fallback={actionData ?? null} />
        <PurchaseImport actionUrl={actionUrl} fallback={actionData ?? null} />
        <ForceInterval actionUrl={actionUrl} runs={runs} fallback={actionData ?? null} />
        <SendDigests actionUrl={actionUrl} />
      </div>

      <section className="card" aria-labelledby="posts-entry-title">
        <h2 id="posts-entry-title">Posts</h2>
        <p>
          Every post with its state, tiers, version and downloads, and one editor per post: <Link to="/admin/posts">Open posts</Link>
        </p>
      </section>

      <InsightsEntry />

      <section className="card" aria-labelledby="releases-entry-title">
        <h2 id="releases-entry-title">Releases</h2>
        <p>
          Scheduled publications and release steps of the next 60 days, and what opened recently: <Link to="/admin/releases">Open releases</Link>
        </p>
      </section>

      <section className="card" aria-labelledby="patches-entry-title">
        <h2 id="patches-entry-title">Game patches</h2>
        <p>
          Name the game&apos;s patches, declare the current one and see how many posts are confirmed on it: <Link to="/admin/patches">Open game patches</Link>
        </p>
      </section>

      <section className="card" aria-labelledby="discord-entry-title">
        <h2 id="discord-entry-title">Discord roles</h2>
        <p>
          Discord roles that follow access, and the queue of role changes: <Link to="/admin/discord">Open Discord roles</Link>
        </p>
      </section>

      <section className="card" aria-labelledby="bug-reports-entry-title">
        <h2 id="bug-reports-entry-title">Bug reports</h2>
        <p>
          Reports from downloaders, with their reporters and &ldquo;me too&rdquo; counts, to confirm, fix in a version or close:{" "}
          <Link to="/admin/reports">Open bug reports</Link>
        </p>
      </section>

      <section className="card" aria-labelledby="mail-outbox-entry-title">
        <h2 id="mail-outbox-entry-title">Mail outbox</h2>
        <p>
          Mails queued, retrying or given up, with the mail server&apos;s last error: <Link to="/admin/mail">Open the mail outbox</Link>
        </p>
      </section>

      <section className="card" aria-labelledby="catalog-entry-title">
        <h2 id="catalog-entry-title">Tags and prices</h2>
        <p>
          The tags posts carry and each tier&apos;s price on its Subscribe buttons: <Link to="/admin/catalog">Open tags and prices</Link>
        </p>
      </section>

      <AuditLog
        audit={audit}
        keep={{ search: query.search, page: query.page > 1 ? String(query.page) : "" }}
        userHref={(userId) => adminHref({ search: query.search, page: query.page, user: userId })}
      />
    </div>
  );
}

/** The page could not load (database down, ...): the spec's message instead of a blank page. */
export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  if (!isRouteErrorResponse(error)) logInBrowser(error);
  return (
    <ErrorPage
      status={status}
      title="Admin"
      message={ADMIN_MESSAGES.fetchUsersFailed}
      hint={isUnavailable(error) ? `${SITE_UNAVAILABLE_TITLE}. ${SITE_UNAVAILABLE_HINT}` : undefined}
    />
  );
}
