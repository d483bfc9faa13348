// /admin/posts: the post table (docs/product.md#the-post-table). Every post with its state and
// warnings, tiers, current version and downloads; search, status filter, sorting and paging live
// in the address (GET forms and links, no script needed). Each title opens the post's editor.
// Effective admins only.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { listPostTable, type PostTableRow } from "~/models/post-table.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { formatDay, formatDayTime } from "~/utils/dates";
import { personalPageHeaders } from "~/utils/page-headers";
import {
  parsePostTableQuery,
  POST_SORT_WORDS,
  POST_STATUS_WORDS,
  POST_TABLE_STATUSES,
  postTableHref,
  type PostTableQuery,
  type PostTableSort,
} from "~/utils/post-table-words";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Posts · Admin · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const query = parsePostTableQuery(new URL(request.url).searchParams);
  const table = await listPostTable(admin, query);
  return data({ ...table, query: { ...query, page: table.page } }, { headers: { "Cache-Control": "private, no-store" } });
}

function tiersCell(row: PostTableRow): string {
  if (row.isKofiOnly) return "Ko-fi only";
  if (row.tiers.length > 0) return row.tiers.join(", ");
  return row.paid ? "None" : "Free";
}

/** A column header that sorts by it; a second click turns the order around. */
function SortHeader({ query, sort }: { query: PostTableQuery; sort: PostTableSort }) {
  const current = query.sort === sort;
  const dir = current && query.dir === "asc" ? "desc" : "asc";
  return (
    <th scope="col" aria-sort={current ? (query.dir === "asc" ? "ascending" : "descending") : undefined}>
      <Link to={postTableHref(query, { sort, dir, page: 1 })} preventScrollReset>
        {POST_SORT_WORDS[sort]}
        {current ? (query.dir === "asc" ? " ▲" : " ▼") : null}
      </Link>
    </th>
  );
}

function StatusCell({ row }: { row: PostTableRow }) {
  return (
    <span className="admin-flags">
      <span className={`badge post-state post-state-${row.state}`}>
        {row.publishAt ? `${POST_STATUS_WORDS.scheduled} for ${formatDayTime(row.publishAt)}` : POST_STATUS_WORDS[row.state]}
      </span>
      {row.paidWithoutTier ? <span className="badge admin-badge-danger">{POST_STATUS_WORDS["paid-no-tier"]}</span> : null}
      {row.outdated ? <span className="badge">{POST_STATUS_WORDS.outdated}</span> : null}
    </span>
  );
}

export default function AdminPosts() {
  const { rows, matching, total, pages, query } = useLoaderData<typeof loader>();
  return (
    <div className="admin-page stack">
      <p>
        <Link to="/admin">Back to the admin area</Link>
      </p>
      <h1>Posts</h1>
      <p className="muted">
        Each post with its state, tiers, current version and downloads. Open a post to edit it. New posts are created in the <Link to="/library">library</Link>.
      </p>

      <Form method="get" className="admin-search" role="search" aria-label="Filter posts">
        <div className="field">
          <label htmlFor="posts-search">Title or post ID</label>
          <input id="posts-search" type="search" name="search" defaultValue={query.search} />
        </div>
        <div className="field">
          <label htmlFor="posts-status">Status</label>
          <select id="posts-status" name="status" defaultValue={query.status}>
            {POST_TABLE_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status === "all" ? "All posts" : POST_STATUS_WORDS[status]}
              </option>
            ))}
          </select>
        </div>
        {query.sort !== "order" ? <input type="hidden" name="sort" value={query.sort} /> : null}
        {query.dir !== "asc" ? <input type="hidden" name="dir" value={query.dir} /> : null}
        <button type="submit" className="button-secondary">
          Filter
        </button>
      </Form>

      <p className="muted" aria-live="polite" data-testid="posts-count">
        {matching} of {total} posts
        {query.search || query.status !== "all" ? (
          <>
            {" "}
            · <Link to="/admin/posts">Show all posts</Link>
          </>
        ) : null}
      </p>

      {rows.length === 0 ? (
        <p>No posts match these filters.</p>
      ) : (
        <div className="table-scroll post-table" tabIndex={0} role="region" aria-label="Posts">
          <table data-testid="post-table">
            <thead>
              <tr>
                <SortHeader query={query} sort="title" />
                <SortHeader query={query} sort="status" />
                <th scope="col">Tiers</th>
                <SortHeader query={query} sort="version" />
                <SortHeader query={query} sort="updated" />
                <SortHeader query={query} sort="downloads" />
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.postId} data-testid="post-table-row" data-post-id={row.postId}>
                  <td data-label="Title">
                    <Link to={`/admin/posts/${encodeURIComponent(row.postId)}`}>{row.title}</Link>
                    <span className="muted admin-mono post-table-id"> {row.postId}</span>
                  </td>
                  <td data-label="Status">
                    <StatusCell row={row} />
                  </td>
                  <td data-label="Tiers">{tiersCell(row)}</td>
                  <td data-label="Version" className="admin-nowrap">
                    {row.version ?? "No file"}
                  </td>
                  <td data-label="Last updated" className="admin-nowrap">
                    {row.lastUpdated ? formatDay(row.lastUpdated) : "—"}
                  </td>
                  <td data-label="Downloads">{row.downloads}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {pages > 1 ? (
        <nav className="button-row" aria-label="Pages of posts">
          {query.page > 1 ? (
            <Link to={postTableHref(query, { page: query.page - 1 })} className="button-secondary" rel="prev">
              Previous page
            </Link>
          ) : null}
          <span className="muted">
            Page {query.page} of {pages}
          </span>
          {query.page < pages ? (
            <Link to={postTableHref(query, { page: query.page + 1 })} className="button-secondary" rel="next">
              Next page
            </Link>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}
