// The user search on /admin: the search box (searching as the admin types), one page of users
// with an Edit link each, and the page links.
import type { SerializeFrom } from "@remix-run/node";
import { Form, Link, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { adminHref } from "~/components/admin/admin-href";
import { providerLabels } from "~/components/admin/format";
import { EmailText } from "~/components/email-text";
import type { UserSearchResult } from "~/models/admin-users.server";
import type { UserSearch } from "~/utils/admin-schemas";

export function UserList({ query, list, editingId }: { query: UserSearch; list: SerializeFrom<UserSearchResult>; editingId: string | null }) {
  const navigation = useNavigation();
  const submit = useSubmit();
  const searchTimer = useRef<ReturnType<typeof setTimeout>>();
  const pages = Math.max(1, Math.ceil(list.total / list.pageSize));
  const searching = navigation.state === "loading" && navigation.location?.pathname === "/admin";

  useEffect(() => () => clearTimeout(searchTimer.current), []);

  return (
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
        {searching
          ? "Searching..."
          : `${list.total} user${list.total === 1 ? "" : "s"}${query.search ? ` matching "${query.search}"` : ""} · page ${list.page} of ${pages}`}
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
              <tr key={user._id} aria-current={editingId === user._id ? "true" : undefined}>
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
  );
}
