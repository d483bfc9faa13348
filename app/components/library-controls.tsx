// The library's search, filters, layout (grid or list) and posts per line: a GET form, so the choice lives in the
// address (and survives a reload). With JavaScript it applies itself as the visitor types or
// picks; without, the Apply button sends it.
import { Form, Link, useSubmit } from "@remix-run/react";
import { useRef, useState } from "react";
import { LIBRARY_LAYOUTS, type LibraryLayout } from "~/utils/library-layout";
import { LIBRARY_FILTERS, POSTS_PER_LINE, USER_ONLY_FILTERS, type LibraryFilter } from "~/utils/library-words";
import { withParam } from "~/utils/url";

const LAYOUT_LABELS: Record<LibraryLayout, string> = { grid: "Grid", list: "List" };

export const FILTER_LABELS: Record<LibraryFilter, string> = {
  all: "All",
  unlocked: "Unlocked",
  locked: "Locked",
  patreon: "Patreon",
  outdated: "Outdated",
  never: "Never downloaded",
  works: "Works on the current patch",
  unconfirmed: "Not confirmed",
};

/** Filters that need a current game patch (docs/product.md#game-patches). */
const PATCH_FILTERS: readonly LibraryFilter[] = ["works", "unconfirmed"];

export function LibraryControls({
  search,
  filter,
  perLine,
  layout,
  showLayout,
  loggedIn,
  viewAsUser,
  patchDay = false,
  tag = null,
  tags = [],
}: {
  search: string;
  filter: LibraryFilter;
  perLine: number;
  layout: LibraryLayout;
  /** The grid/list choice (not in the admins' editor view, which is cards only). */
  showLayout: boolean;
  loggedIn: boolean;
  /** An admin looking at the user view keeps it while searching. */
  viewAsUser: boolean;
  /** A game patch is current: the compatibility filters are offered. */
  patchDay?: boolean;
  /** The tag filter (`?tag=slug`), and the tags to choose from. */
  tag?: string | null;
  tags?: readonly { slug: string; name: string }[];
}) {
  const submit = useSubmit();
  const searchTimer = useRef<number>();
  const [filtersOpen, setFiltersOpen] = useState(filter !== "all");
  const filters = LIBRARY_FILTERS.filter((choice) => (loggedIn || !USER_ONLY_FILTERS.includes(choice)) && (patchDay || !PATCH_FILTERS.includes(choice)));
  return (
    <Form
      method="get"
      action="/library"
      className="library-controls"
      role="search"
      onChange={(event) => {
        const form = event.currentTarget;
        const fromSearch = (event.target as HTMLElement).getAttribute("name") === "search";
        window.clearTimeout(searchTimer.current);
        searchTimer.current = window.setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), fromSearch ? 300 : 0);
      }}
    >
      {viewAsUser ? <input type="hidden" name="view" value="user" /> : null}
      <div className="field library-search">
        <label htmlFor="library-search">Search by title</label>
        <input id="library-search" type="search" name="search" defaultValue={search} placeholder="Search posts..." />
      </div>
      <details className="library-filters" open={filtersOpen} onToggle={(event) => setFiltersOpen(event.currentTarget.open)}>
        <summary>Filters</summary>
        <fieldset>
          <legend className="visually-hidden">Show</legend>
          {filters.map((choice) => (
            <label key={choice} className="checkbox">
              <input type="radio" name="filter" value={choice} defaultChecked={filter === choice} /> {FILTER_LABELS[choice]}
            </label>
          ))}
        </fieldset>
      </details>
      {tags.length > 0 ? (
        <div className="field library-tag">
          <label htmlFor="library-tag">Tag</label>
          <select id="library-tag" name="tag" defaultValue={tag ?? ""}>
            <option value="">All tags</option>
            {tags.map((item) => (
              <option key={item.slug} value={item.slug}>
                {item.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {showLayout ? (
        <fieldset className="library-layout">
          <legend>View</legend>
          <div className="segmented">
            {LIBRARY_LAYOUTS.map((choice) => (
              <label key={choice} className="segmented-option">
                <input type="radio" name="layout" value={choice} defaultChecked={layout === choice} />
                <span>{LAYOUT_LABELS[choice]}</span>
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      {/* In the list it keeps the grid's choice (sent along, not shown). */}
      <div className="field library-per-line" data-layout={layout}>
        <label htmlFor="library-per-line">Posts per line</label>
        <select id="library-per-line" name="perLine" defaultValue={String(perLine)}>
          {POSTS_PER_LINE.map((count) => (
            <option key={count} value={count}>
              {count}
            </option>
          ))}
        </select>
      </div>
      <noscript>
        <button type="submit" className="button">
          Apply
        </button>
      </noscript>
    </Form>
  );
}

/**
 * No post matches: says what narrowed the list (the search, the filter, or both) and offers the
 * whole library back. A full page load, so the controls above are drawn again empty.
 */
export function EmptyLibrary({
  search,
  filter,
  back,
  tag = null,
}: {
  search: string;
  filter: LibraryFilter;
  back: string;
  /** The tag filtered by, by name. */
  tag?: string | null;
}) {
  const filtered = filter !== "all" || tag !== null;
  const label = FILTER_LABELS[filter];
  const message =
    tag !== null && filter === "all"
      ? search
        ? `No posts with the tag \u201c${tag}\u201d match your search.`
        : `No posts have the tag \u201c${tag}\u201d.`
      : !filtered
        ? "No posts match your search."
        : search
          ? `No posts match your search in the filter \u201c${label}\u201d.`
          : `No posts match the filter \u201c${label}\u201d.`;
  const all = ["filter", "search", "show", "tag"].reduce((address, name) => withParam(address, name, null), back);
  return (
    <div className="library-empty" data-testid="library-empty">
      <p>{message}</p>
      {filtered || search ? (
        <p>
          <Link to={all} reloadDocument className="button-secondary">
            Show all posts
          </Link>
        </p>
      ) : null}
    </div>
  );
}
