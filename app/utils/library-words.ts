// The library's messages (docs/messages.md, word for word), its filters and layout choices, and
// the admin card's drawn-field names: plain values without zod, for the browser's library page.
// The validation that uses them is in library-schemas.ts.

/** The messages the library's pages show in the browser: apart, so their scripts carry only these. */
export const LIBRARY_PAGE_MESSAGES = {
  fetchFailed: "Failed to fetch data. Please try again later.",
  loadPostsFailed: "Error loading posts.",
  downloadStarting: "Download will be starting soon...",
  downloadStarted: "Download initiated.",
  guestTos: "If you don't want this popup every time, sign up!",
} as const;

export const LIBRARY_MESSAGES = {
  ...LIBRARY_PAGE_MESSAGES,
  adminOnly: "You need to be logged in as an admin to perform this action.",
  toggleFailed: "Failed to update post status",
  orderFailed: "Failed to update post order",
  imageFailed: "Failed to upload image",
  updateFailed: "Failed to update post",
  freeDownloadFailed: "Failed to process free download.",
  tosFailed: "Could not update TOS acceptance.",
  invalidIndex: "Please enter a valid index.",
  postNotFound: "Post not found.",
  locked: "You do not have access to this post.",
  tosRequired: "Please accept the terms of service before downloading.",
  fileMissing: "This post has no file to download yet.",
  notFree: "This post is not free. Please use its Download button.",
  fileUploadFailed: "Failed to upload file",
  manifestLinkExpired: "This download link has expired. Fetch your library manifest again for a new one.",
  manifestFailed: "Could not make your library manifest.",
  deltaFromMissing: "Name the version you have with ?from=.",
  deltaFromUnknown: "This post has no version by that name, so no update can be made from it. Download the whole file.",
  deltaFromCurrent: "You already have the current version of this post.",
  deltaFromNoFile: "That version has no file with this file's role and label, so no update can be made from it. Download the whole file.",
  deltaNotPossible: "No update can be made between these versions. Download the whole file.",
  deltaFailed: "Could not make the update.",
  /** The post editor's shop price, typed in the currency's units. */
  shopPriceInUnits: "Enter the shop price as an amount such as 4.50.",
  /** `shop_price_cents` of the API. */
  shopPriceInCents: "Enter the shop price in cents, a whole number of 0 or more.",
} as const;

/** Spec section 9: download-started message delay. */
export const DOWNLOAD_MESSAGE_DELAY_MS = 3000;
export const POSTS_PER_LINE = [2, 3, 4] as const;
export const DEFAULT_POSTS_PER_LINE = 2;

export const LIBRARY_FILTERS = ["all", "unlocked", "locked", "patreon", "outdated", "never", "works", "unconfirmed"] as const;
export type LibraryFilter = (typeof LIBRARY_FILTERS)[number];
/** Filters that need a logged-in user (they depend on the user's downloads). */
export const USER_ONLY_FILTERS: readonly LibraryFilter[] = ["outdated", "never"];

/** The `filter` query parameter: anything unknown (or user-only for a guest) means all. */
export function parseLibraryFilter(value: string | null | undefined, loggedIn: boolean): LibraryFilter {
  const filter = (LIBRARY_FILTERS as readonly string[]).includes(value ?? "") ? (value as LibraryFilter) : "all";
  if (!loggedIn && USER_ONLY_FILTERS.includes(filter)) return "all";
  return filter;
}

export function parsePostsPerLine(value: string | null | undefined): number {
  const number = Number(value);
  return (POSTS_PER_LINE as readonly number[]).includes(number) ? number : DEFAULT_POSTS_PER_LINE;
}

/** The card's hidden copy of a field as it was drawn: `drawn_title` for `title`. */
export function drawnFieldName<N extends string>(name: N): `drawn_${N}` {
  return `drawn_${name}`;
}

/** A list of tier ids as the card draws it in one hidden field: sorted, comma-separated. */
export function drawnTierList(ids: readonly string[]): string {
  return [...new Set(ids)].sort().join(",");
}
