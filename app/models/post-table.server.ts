// The admin post table (docs/product.md#the-post-table): every post with its state (disabled,
// draft, scheduled, published), its warnings (paid without a tier, outdated), tiers, current
// version and downloads, filtered, sorted and paged as the address asks. Admins only (the route
// checks); the posts come from the listing as admins see it.
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { listTags } from "~/models/catalog.server";
import { DomainError } from "~/models/errors";
import { isUnconfirmedOnPatch, listLibraryPosts, type LibraryPost } from "~/models/library-listing.server";
import { adminRequirementsOf } from "~/models/post-requirements.server";
import { versionHistories } from "~/models/post-version-history.server";
import { listTiers } from "~/models/tier.server";
import { fileJson, filesOfVersions } from "~/models/version-files.server";
import { isPublishedAt, postHiddenFrom } from "~/utils/post-visibility";
import { LIBRARY_MESSAGES } from "~/utils/library-words";
import { POST_STATES, POST_TABLE_PAGE_SIZE, type PostState, type PostTableQuery } from "~/utils/post-table-words";
import { displayVersion } from "~/utils/versions";

export type PostTableRow = {
  postId: string;
  title: string;
  state: PostState;
  /** The scheduled publication, while it is ahead. */
  publishAt: string | null;
  paidWithoutTier: boolean;
  outdated: boolean;
  /** The current tiers' titles; "Ko-fi only" and "Free" are the page's words. */
  tiers: string[];
  isKofiOnly: boolean;
  paid: boolean;
  /** The current version's label, or null before the first file. */
  version: string | null;
  lastUpdated: string | null;
  downloads: number;
};

export type PostTablePage = { rows: PostTableRow[]; matching: number; total: number; pages: number; page: number };

/**
 * Where the post is on its way out, by precedence: disabled, then scheduled (its publication is
 * ahead, whether or not its file is there), draft (no file yet), published.
 */
export function postState(post: Pick<LibraryPost, "enabled" | "fileSize" | "publish_at">, now: Date): PostState {
  // Disabled or scheduled: as the post-visibility rule hides it from everyone but admins.
  const hidden = postHiddenFrom({ enabled: post.enabled, publishAt: post.publish_at ? new Date(post.publish_at) : null }, null, now);
  if (hidden) return hidden.kind;
  if (post.fileSize === null) return "draft";
  return "published";
}

/**
 * Paid, not Ko-fi only, and no tier has it now or gets it by a release step: no supporter can
 * download it (only a shop purchase of its Ko-fi item).
 */
export function isPaidWithoutTier(post: Pick<LibraryPost, "paid_content" | "is_kofiOnly" | "tiers" | "release_steps">): boolean {
  return post.paid_content && !post.is_kofiOnly && post.tiers.length === 0 && !post.release_steps.some((step) => step.audience_tier_id !== null);
}

/** Downloads per post: signed-in and guest downloads together. */
async function downloadCounts(): Promise<Map<string, number>> {
  const [signedIn, guests] = await Promise.all([
    db.download.groupBy({ by: ["postId"], _count: { _all: true } }),
    db.guestDownload.groupBy({ by: ["postId"], _count: { _all: true } }),
  ]);
  const counts = new Map<string, number>();
  for (const row of [...signedIn, ...guests]) counts.set(row.postId, (counts.get(row.postId) ?? 0) + row._count._all);
  return counts;
}

function compareRows(sort: PostTableQuery["sort"]): (a: PostTableRow & { order: number }, b: PostTableRow & { order: number }) => number {
  switch (sort) {
    case "title":
      return (a, b) => a.title.localeCompare(b.title);
    case "status":
      return (a, b) => POST_STATES.indexOf(a.state) - POST_STATES.indexOf(b.state);
    case "version":
      return (a, b) => (a.version ?? "").localeCompare(b.version ?? "", undefined, { numeric: true });
    case "updated":
      return (a, b) => (a.lastUpdated ?? "").localeCompare(b.lastUpdated ?? "");
    case "downloads":
      return (a, b) => a.downloads - b.downloads;
    default:
      return (a, b) => a.order - b.order;
  }
}

/** One page of the table as `query` asks, at `now`. */
export async function listPostTable(admin: User, query: PostTableQuery, now: Date = new Date()): Promise<PostTablePage> {
  const [{ posts }, tiers, downloads] = await Promise.all([listLibraryPosts(admin), listTiers(), downloadCounts()]);
  const titles = new Map(tiers.map((tier) => [tier.tierId, tier.title]));
  const rows = posts.map((post, order) => {
    const state = postState(post, now);
    return {
      order,
      postId: post.postId,
      title: post.title,
      state,
      publishAt: state === "scheduled" ? post.publish_at : null,
      paidWithoutTier: isPaidWithoutTier(post),
      outdated: isUnconfirmedOnPatch(post),
      tiers: post.tiers.map((id) => titles.get(id) ?? "Unknown Tier"),
      isKofiOnly: post.is_kofiOnly,
      paid: post.paid_content,
      version: post.fileSize === null ? null : displayVersion(post.version),
      lastUpdated: post.last_updated,
      downloads: downloads.get(post.postId) ?? 0,
    };
  });
  const needle = query.search.trim().toLowerCase();
  const matching = rows.filter((row) => {
    if (needle && !row.title.toLowerCase().includes(needle) && row.postId.toLowerCase() !== needle) return false;
    if (query.status === "all") return true;
    if (query.status === "paid-no-tier") return row.paidWithoutTier;
    if (query.status === "outdated") return row.outdated;
    return row.state === query.status;
  });
  const compare = compareRows(query.sort);
  // Ties keep the library order, whichever way the column sorts.
  matching.sort((a, b) => (query.dir === "desc" ? compare(b, a) : compare(a, b)) || a.order - b.order);
  const pages = Math.max(1, Math.ceil(matching.length / POST_TABLE_PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const shown = matching.slice((page - 1) * POST_TABLE_PAGE_SIZE, page * POST_TABLE_PAGE_SIZE);
  return { rows: shown.map(({ order: _order, ...row }) => row), matching: matching.length, total: rows.length, pages, page };
}

/**
 * Everything the post's editor shows (/admin/posts/{postId}): the post as admins see it, its
 * state at `now` (the exact clock: a post published a second ago reads "Published"), its
 * versions, requirements, every tag and tier, every post to require, and its library position.
 */
export async function loadPostEditor(admin: User, postId: string, now: Date = new Date()) {
  const { posts, stamp } = await listLibraryPosts(admin);
  const position = posts.findIndex((post) => post.postId === postId);
  const post = posts[position];
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  const [tiers, versions, requirements, tags] = await Promise.all([
    listTiers(),
    // At the library version this request's listing was read at.
    versionHistories([postId], { admin: true, stamp }),
    adminRequirementsOf([postId]),
    listTags(),
  ]);
  const state = postState(post, now);
  const currentVersionId = versions[postId]?.find((version) => version.current)?.id ?? null;
  // The current version's added files, each with a Remove (docs/product.md#files-of-a-version).
  const files = currentVersionId ? ((await filesOfVersions([currentVersionId])).get(currentVersionId) ?? []).map(fileJson) : [];
  return {
    files,
    post,
    state,
    scheduled: !isPublishedAt({ publishAt: post.publish_at ? new Date(post.publish_at) : null }, now),
    paidWithoutTier: isPaidWithoutTier(post),
    outdated: isUnconfirmedOnPatch(post),
    position,
    tiers,
    versions: versions[postId] ?? [],
    requirements: requirements[postId] ?? [],
    tags: tags.map((tag) => ({ slug: tag.slug, name: tag.name })),
    postChoices: posts.filter((other) => other.postId !== postId).map((other) => ({ postId: other.postId, title: other.title })),
  };
}
