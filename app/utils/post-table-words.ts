// The admin post table's words, statuses, sorts and address parsing (docs/product.md#the-post-table).
// Zod-free: the table's links and filters are drawn in the browser too.

/** A post's place on the way out: one of these, in this order of precedence. */
export const POST_STATES = ["disabled", "scheduled", "draft", "published"] as const;
export type PostState = (typeof POST_STATES)[number];

/** What the status filter offers: a state, or one of the two warnings a post may carry beside it. */
export const POST_TABLE_STATUSES = ["all", ...POST_STATES, "paid-no-tier", "outdated"] as const;
export type PostTableStatus = (typeof POST_TABLE_STATUSES)[number];

export const POST_TABLE_SORTS = ["order", "title", "status", "version", "updated", "downloads"] as const;
export type PostTableSort = (typeof POST_TABLE_SORTS)[number];

export const POST_TABLE_PAGE_SIZE = 25;

export const POST_STATUS_WORDS: Record<Exclude<PostTableStatus, "all">, string> = {
  disabled: "Disabled",
  draft: "Draft",
  scheduled: "Scheduled",
  published: "Published",
  "paid-no-tier": "Paid without a tier",
  outdated: "Outdated",
};

export const POST_SORT_WORDS: Record<PostTableSort, string> = {
  order: "Library order",
  title: "Title",
  status: "Status",
  version: "Version",
  updated: "Last updated",
  downloads: "Downloads",
};

export type PostTableQuery = { search: string; status: PostTableStatus; sort: PostTableSort; dir: "asc" | "desc"; page: number };

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return values.includes(value as T) ? (value as T) : fallback;
}

/** The table's address as a query: anything unknown falls back to the default, so every address shows a table. */
export function parsePostTableQuery(params: URLSearchParams): PostTableQuery {
  const page = Number(params.get("page"));
  return {
    search: (params.get("search") ?? "").slice(0, 200),
    status: oneOf(POST_TABLE_STATUSES, params.get("status"), "all"),
    sort: oneOf(POST_TABLE_SORTS, params.get("sort"), "order"),
    dir: params.get("dir") === "desc" ? "desc" : "asc",
    page: Number.isInteger(page) && page > 1 ? Math.min(page, 10_000) : 1,
  };
}

/** The address of the table with `change` applied; defaults are left out so addresses stay short. */
export function postTableHref(query: PostTableQuery, change: Partial<PostTableQuery>): string {
  const next = { ...query, ...change };
  const params = new URLSearchParams();
  if (next.search) params.set("search", next.search);
  if (next.status !== "all") params.set("status", next.status);
  if (next.sort !== "order") params.set("sort", next.sort);
  if (next.dir !== "asc") params.set("dir", next.dir);
  if (next.page > 1) params.set("page", String(next.page));
  const search = params.toString();
  return search ? `/admin/posts?${search}` : "/admin/posts";
}
