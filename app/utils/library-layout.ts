// The library's two layouts (docs/product.md#library-library): the grid of cards (2, 3 or 4 per
// line, the default) or a compact list, one row per post. Kept in the address as `layout`, like
// the filters, so a reload or a shared link keeps it.
export const LIBRARY_LAYOUTS = ["grid", "list"] as const;
export type LibraryLayout = (typeof LIBRARY_LAYOUTS)[number];

/** The `layout` query parameter: anything but "list" means the grid. */
export function parseLibraryLayout(value: string | null | undefined): LibraryLayout {
  return value === "list" ? "list" : "grid";
}
