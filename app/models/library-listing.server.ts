// The library as each viewer sees it: every post in the spec's shape (docs/api.md#post), with
// `unlocked` from the entitlement rule and the viewer's download status. The posts are shaped
// once per library version and cached (app/cache.server.ts); post administration lives in
// post-admin.server.ts.
import { fromDbExtensionType } from "~/models/blender-extension.server";
import { createCache } from "~/cache.server";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { loadViewerContext, toEntitlementPost, withAccess, type PostWithAccess, type ViewerContext } from "~/models/entitlement.server";
import { currentPatchMarks } from "~/models/game-patch.server";
import { isPostPublic, isPostVisible } from "~/models/post-visibility.server";
import { notePageTurnsAt } from "~/request-context.server";
import { explainAccess, isEffectiveAdmin, isFreeAt, nextReleaseChange, tierIdsAt, type EntitlementPost, type EntitlementViewer } from "~/utils/entitlement";
import type { PostCompatibility } from "~/utils/game-patch-schemas";
import type { LibraryFilter } from "~/utils/library-schemas";
import type { StoredRequirement } from "~/utils/requirements";
import { displayVersion, downloadStatus, type DownloadStatus } from "~/utils/versions";
import { explainFiles, type ExplainedFile, type ExplainedPost, type FileView, type StoredFile } from "~/utils/version-file-views";

type Viewer = Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId"> | null;

/** A release step as the listing shows it: the admin's choice, and the instant and audience it resolves to. */
import type { ListedReleaseStep } from "~/utils/release-ladder";
export type { ListedReleaseStep };

/** A post as GET /api/library/posts answers it (field names of docs/api.md#post). */
export type LibraryPost = {
  postId: string;
  title: string;
  imageUrl: string | null;
  enabled: boolean;
  paid_content: boolean;
  is_content: boolean;
  url: string | null;
  kofi_id: string | null;
  drive_file_id?: string | null;
  /** Admins only: each release step's Discord announcement address (a secret: it lets anyone post), or null. */
  release_announce_urls?: (string | null)[];
  fileName: string | null;
  fileSize: number | null;
  version: string;
  tiers: string[];
  first_tiers: string[];
  first_published_at: string | null;
  published_at: string | null;
  last_updated: string | null;
  order_date: string;
  is_kofiOnly: boolean;
  /** Scheduled publication (shown to admins only while it is ahead). */
  publish_at: string | null;
  /** The release steps in order (docs/api.md#post); `tiers` and `paid_content` are what they have reached now. */
  release_steps: ListedReleaseStep[];
  /** The inspiration item this post realizes, with how many had voted for it (docs/product.md#releases). */
  inspired_by: { title: string | null; voters: number } | null;
  /** The current version's mark on the current game patch; null before the first patch day or without a file (docs/api.md#post). */
  compatibility: PostCompatibility | null;
  /** The post's tags (docs/product.md#tags), by name. */
  tags: PostTagView[];
  /** The shop item's price where the creator entered it (docs/product.md#prices). */
  shop_price_cents: number | null;
  shop_currency: string | null;
  unlocked: boolean;
  /** Only for logged-in viewers. */
  downloadStatus?: DownloadStatus;
  userVersion?: string | null;
  /** For admins: "add-on" or "theme" when the post is marked as a Blender extension, else null. */
  blender_extension?: "add-on" | "theme" | null;
  /**
   * Only when the current version has files besides its main one: all its files, main first, each
   * with the viewer's access (as GET /api/library/posts/{id} lists them, docs/api.md#post).
   */
  files?: FileView[];
};

export { withAccess };

export type PostTagView = { slug: string; name: string };

/** A post's tags as the listing shows them, by name. */
const withTags = { select: { tag: { select: { slug: true, name: true } } } } as const;
type TagsOfPost = { tag: PostTagView }[];

/** A post's requirements in their order. */
const withRequirements = {
  select: { requiredPostId: true, minVersion: true, name: true, url: true },
  orderBy: [{ position: "asc" as const }, { id: "asc" as const }],
};
type RequirementRow = { requiredPostId: string | null; minVersion: string | null; name: string | null; url: string | null };

function toStoredRequirement(row: RequirementRow): StoredRequirement {
  return row.requiredPostId
    ? { kind: "post", requiredPostId: row.requiredPostId, minVersion: row.minVersion }
    : { kind: "item", name: row.name ?? "", url: row.url ?? "" };
}

/** The newest inspiration item a post realizes, with its voter count (the listing's `inspired_by`). */
const withInspiration = { select: { title: true, _count: { select: { voters: true } } }, orderBy: { shippedAt: "desc" }, take: 1 } as const;
type InspirationOfPost = { title: string | null; _count: { voters: number } };

export function postImageKey(postId: string) {
  return `images/posts/${postId}.jpg`;
}

const POST_IMAGE_KEY = /^images\/posts\/([A-Za-z0-9_-]{1,64})\.(?:jpg|png|webp)$/;

/**
 * Who may see a stored image: "public" for every image but the front of a post not shown to
 * everyone (disabled or scheduled), which only those who see the post get ("private": serve it
 * privately, uncached, so no shared cache keeps it); "hidden" answers 404 like a missing file.
 */
export async function storedImageAudience(
  key: string,
  viewer: () => Promise<Pick<User, "isAdmin" | "restricted"> | null>,
  now: Date = new Date(),
): Promise<"public" | "private" | "hidden"> {
  const match = POST_IMAGE_KEY.exec(key);
  if (!match) return "public";
  const post = await db.post.findUnique({ where: { id: match[1]! }, select: { enabled: true, publishAt: true, imageKey: true } });
  if (!post || post.imageKey !== key || isPostPublic(post, now)) return "public";
  return isPostVisible(post, await viewer(), now) ? "private" : "hidden";
}

/**
 * The front's address. Its version changes whenever the post row does and whenever the post
 * becomes (or stops being) shown to everyone, so a copy cached as public and one served
 * privately never share an address, and the public one can be cached forever.
 */
function imageUrl(post: PostWithAccess, now: Date): string | null {
  if (!post.imageKey?.startsWith("images/")) return null;
  const audience = isPostPublic(post, now) ? "" : "p";
  return `/media/${post.imageKey.slice("images/".length)}?v=${post.updatedAt.getTime().toString(36)}${audience}`;
}

/**
 * A stored post in the listing's shape at `now` (its tiers and whether it is paid are what its
 * release steps have reached by then); `admin` adds its storage key, `downloaded` the viewer's status.
 */
/** Each release step's announcement address, in the steps' order (admins only). */
function announceUrlsOf(post: Pick<PostWithAccess, "releaseSteps">): (string | null)[] {
  return post.releaseSteps.map((step) => step.announceUrl ?? null);
}

export function toLibraryPost(
  post: PostWithAccess & { inspirations?: InspirationOfPost[]; tags?: TagsOfPost },
  unlocked: boolean,
  admin: boolean,
  downloaded?: Map<string, string>,
  now: Date = new Date(),
  compatibility: PostCompatibility | null = null,
): LibraryPost {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const rule = toEntitlementPost(post);
  const result: LibraryPost = {
    postId: post.id,
    title: post.title,
    imageUrl: imageUrl(post, now),
    enabled: post.enabled,
    paid_content: !isFreeAt(rule, now),
    is_content: post.isContent,
    url: post.url,
    kofi_id: post.kofiId,
    fileName: post.fileName,
    fileSize: post.fileSize === null ? null : Number(post.fileSize),
    version: displayVersion(post.version),
    tiers: tierIdsAt(rule, now),
    first_tiers: post.tiers.filter((tier) => tier.kind === "FIRST").map((tier) => tier.tierId),
    first_published_at: iso(post.firstPublishedAt),
    published_at: iso(post.publishedAt),
    last_updated: iso(post.lastUpdated),
    order_date: post.orderDate.toISOString(),
    is_kofiOnly: post.isKofiOnly,
    publish_at: iso(post.publishAt),
    release_steps: post.releaseSteps.map((step) => ({
      audience_tier_id: step.audienceTierId,
      tier_ids: step.audienceTierId === null ? null : step.tierIds,
      after_days: step.afterDays,
      opens_on: iso(step.opensOn),
      opens_at: step.opensAt.toISOString(),
    })),
    inspired_by: post.inspirations?.[0] ? { title: post.inspirations[0].title, voters: post.inspirations[0]._count.voters } : null,
    compatibility,
    tags: (post.tags ?? []).map((link) => link.tag).sort((a, b) => a.name.localeCompare(b.name)),
    shop_price_cents: post.shopPriceCents,
    shop_currency: post.shopPriceCents === null ? null : (post.shopCurrency ?? "USD"),
    unlocked,
  };
  if (admin) {
    result.drive_file_id = post.driveFileId;
    result.blender_extension = fromDbExtensionType(post.blenderExtension);
    result.release_announce_urls = announceUrlsOf(post);
  }
  if (downloaded) {
    const version = downloaded.get(post.id);
    result.downloadStatus = downloadStatus(post.version, version === undefined ? null : { version });
    result.userVersion = version ?? null;
  }
  return result;
}

/**
 * The posts as stored, shaped once per library version: the version (bumped by database
 * triggers, read with the viewer's entitlements) tells every app server when to read them again,
 * so several servers stay correct without talking to each other.
 */
type LibrarySnapshot = {
  stamp: string;
  /** When a scheduled post or a release step next changes what the listing says (epoch ms). */
  until: number | undefined;
  posts: SnapshotPost[];
  byId: Map<string, SnapshotPost>;
};
type SnapshotPost = {
  row: PostWithAccess;
  entitlement: EntitlementPost;
  base: LibraryPost;
  publicJson: string;
  adminJson: string;
  /** Kept beside the shared JSON, never in it: a required post's id is named only to those who may see it. */
  requirements: StoredRequirement[];
  /** The current version's main and added files (not removed ones) when it has added files; their access is per viewer. */
  files: { fileName: string; size: bigint; sha256: string | null; files: StoredFile[] } | null;
};

const snapshots = createCache<LibrarySnapshot>(1);

/** JSON of an object without its closing brace, so per-viewer fields can be appended. */
function openJson(value: object): string {
  return JSON.stringify(value).slice(0, -1);
}

/** Rows read after the stamp are at least as new as it; a change in between only means one more read on the next request. */
async function readSnapshot(stamp: string, now: Date): Promise<LibrarySnapshot> {
  const [rows, patch, versionsWithFiles] = await Promise.all([
    db.post.findMany({
      orderBy: [{ orderDate: "desc" }, { id: "asc" }],
      include: { ...withAccess, inspirations: withInspiration, tags: withTags, requirements: withRequirements },
    }),
    // The marks on the current game patch: kept with the posts (the patches and marks bump the library version).
    currentPatchMarks(),
    // The current versions that have added files, with them (version_files bump the library version too).
    db.postVersion.findMany({
      where: { currentOf: { isNot: null }, files: { some: { removedAt: null } } },
      select: {
        id: true,
        fileName: true,
        size: true,
        sha256: true,
        files: {
          where: { removedAt: null },
          orderBy: [{ position: "asc" }, { createdAt: "asc" }],
          select: { id: true, role: true, label: true, fileName: true, size: true, sha256: true, gateTierIds: true, gateShopItem: true },
        },
      },
    }),
  ]);
  const withFiles = new Map(versionsWithFiles.map((version) => [version.id, version]));
  let until: number | undefined;
  const posts = rows.map((row) => {
    const compatibility = patch && row.currentVersionId ? { patch: patch.patch, mark: patch.marks.get(row.currentVersionId) ?? "untested" } : null;
    const {
      unlocked: _unlocked,
      drive_file_id: _key,
      release_announce_urls: _announce,
      ...shared
    } = toLibraryPost(row, false, true, undefined, now, compatibility);
    const entitlement = toEntitlementPost(row);
    const change = nextReleaseChange(entitlement, now);
    if (change !== undefined && (until === undefined || change < until)) until = change;
    return {
      row,
      entitlement,
      base: { ...shared, unlocked: false },
      publicJson: openJson(shared),
      adminJson: openJson({ ...shared, drive_file_id: row.driveFileId, release_announce_urls: announceUrlsOf(row) }),
      requirements: row.requirements.map(toStoredRequirement),
      files: (row.currentVersionId ? withFiles.get(row.currentVersionId) : undefined) ?? null,
    };
  });
  return { stamp, until, posts, byId: new Map(posts.map((post) => [post.row.id, post])) };
}

async function loadSnapshot(stamp: string, now: Date): Promise<LibrarySnapshot> {
  const snapshot = await snapshots.get(
    "library",
    stamp,
    async () => {
      const value = await readSnapshot(stamp, now);
      return { value, until: value.until };
    },
    now.getTime(),
  );
  return snapshot;
}

/**
 * A post as the library holds it at `stamp` (a library stamp read with the request's viewer), or
 * null when there is no such post: the downloads read it from the listing's snapshot, which is
 * read again only when the library changes.
 */
export async function libraryPostAt(stamp: string, postId: string, now = new Date()): Promise<PostWithAccess | null> {
  return (await loadSnapshot(stamp, now)).byId.get(postId)?.row ?? null;
}

/**
 * Every post as the library holds it at `stamp`, in library order, and the instant after `now`
 * at which a scheduled publication or a release step next changes who may download (epoch ms,
 * or undefined): read from the listing's snapshot, so asking again costs no query until the
 * library changes or that instant passes.
 */
export async function libraryPostsAt(stamp: string, now = new Date()): Promise<{ posts: PostWithAccess[]; until: number | undefined }> {
  const snapshot = await loadSnapshot(stamp, now);
  return { posts: snapshot.posts.map((post) => post.row), until: snapshot.until };
}

/**
 * The stored requirements of these posts as the library holds them at `stamp`, by post id (posts
 * without any are left out): read from the listing's snapshot, so no query per card.
 */
export async function storedRequirementsAt(stamp: string, postIds: readonly string[], now = new Date()): Promise<Map<string, StoredRequirement[]>> {
  const snapshot = await loadSnapshot(stamp, now);
  const found = new Map<string, StoredRequirement[]>();
  for (const id of postIds) {
    const requirements = snapshot.byId.get(id)?.requirements;
    if (requirements && requirements.length > 0) found.set(id, requirements);
  }
  return found;
}

type ViewedPost = {
  base: LibraryPost;
  files?: FileView[];
  driveFileId: string | null;
  announceUrls: (string | null)[];
  json: string;
  access: ListedAccess;
  status?: DownloadStatus;
  userVersion?: string | null;
};

/** What the listing needs about its viewer (see `loadRequestViewer`). */
export const LISTING_VIEWER = { withDownloads: true, withLibraryStamp: true } as const;

/**
 * The viewer a caller loaded already: its context as `LISTING_VIEWER` asks for it and, for the
 * words of the cards, the viewer with the details the explanations name (`loadLibraryPageViewer`).
 */
export type ListingViewer = { context: ViewerContext; explained?: EntitlementViewer | null };

async function viewerAndLibrary(user: Viewer, preloaded?: ListingViewer) {
  const admin = isEffectiveAdmin(user);
  const context = preloaded?.context ?? (await loadViewerContext(user, LISTING_VIEWER));
  const explained = preloaded?.explained === undefined ? context.viewer : preloaded.explained;
  // A listing is its viewer's own: it names no purchase made with an address they have not
  // proved is theirs (linking someone else's email must not reveal what was bought with it).
  const viewer = explained?.details ? { ...explained, details: { ...explained.details, unverifiedPurchases: [] } } : explained;
  // One instant for the whole answer: the snapshot is current until its `until`, so the rule
  // asked at `now` agrees with the tiers the snapshot shaped.
  const now = new Date();
  const library = await loadSnapshot(context.libraryStamp, now);
  return { admin, user, context, viewer, library, now };
}

function viewPosts({ admin, user, context, viewer, library, now }: Awaited<ReturnType<typeof viewerAndLibrary>>): ViewedPost[] {
  const viewed: ViewedPost[] = [];
  for (const post of library.posts) {
    // Disabled and scheduled posts are for admins only.
    if (!isPostVisible(post.row, user, now)) continue;
    // The rule, asked once per post: `unlocked`, the card's words, its file lines and the pages
    // that list it read this explanation.
    const access: ListedAccess = { entitlement: post.entitlement, explanation: explainAccess(post.entitlement, viewer, now), files: null };
    // Only posts whose current version has added files carry the list (nothing changes for the others).
    if (post.files) access.files = explainFiles(access, post.files, post.files.files, viewer, now);
    const item: ViewedPost = {
      base: post.base,
      driveFileId: post.row.driveFileId,
      announceUrls: announceUrlsOf(post.row),
      json: admin ? post.adminJson : post.publicJson,
      access,
    };
    if (access.files) item.files = access.files.map((file) => file.view);
    if (context.downloads) {
      const version = context.downloads.get(post.row.id);
      item.status = downloadStatus(post.row.version, version === undefined ? null : { version });
      item.userVersion = version ?? null;
    }
    viewed.push(item);
  }
  return viewed;
}

/**
 * What the listing knows about one listed post besides its API shape: the post as the
 * entitlement rule sees it (made from the stored row, never from the API shape), the rule's
 * explanation of it for the listing's viewer at the listing's instant (`unlocked` is its
 * `allowed`), and, when the listing lists its current version's files, each file's.
 */
export type ListedAccess = ExplainedPost & { files: ExplainedFile[] | null };

/** The library as one request's viewer sees it at one instant. */
export type LibraryListing = {
  /** In library order, in the API's shape (docs/api.md#post). */
  posts: LibraryPost[];
  /** The library version the listing was read at: the request's own (its viewer context's). */
  stamp: string;
  /** The instant the rule was asked at. */
  now: Date;
  /** The viewer the rule was asked for (null: a guest), with the details the words name when the caller loaded them. */
  viewer: EntitlementViewer | null;
  /** Each listed post's entitlement and explanation, by post id. */
  access: ReadonlyMap<string, ListedAccess>;
};

/** A listed post's entitlement and explanation; `post` must come from this listing. */
export function accessOf(listing: LibraryListing, post: Pick<LibraryPost, "postId">): ListedAccess {
  const found = listing.access.get(post.postId);
  if (!found) throw new Error(`Post ${post.postId} is not in this listing`);
  return found;
}

/**
 * Every post the viewer may see, newest order date first, each explained once by the
 * entitlement rule: admins see disabled posts too and the storage keys of files. Logged-in
 * viewers get their download status per post. `preloaded`: the viewer, when the caller loaded it
 * already (else its context is loaded as `LISTING_VIEWER` asks).
 */
export async function listLibraryPosts(user: Viewer, preloaded?: ListingViewer): Promise<LibraryListing> {
  const view = await viewerAndLibrary(user, preloaded);
  const access = new Map<string, ListedAccess>();
  const posts = viewPosts(view).map((item) => {
    const post: LibraryPost = { ...item.base, unlocked: item.access.explanation.allowed };
    if (view.admin) {
      post.drive_file_id = item.driveFileId;
      post.release_announce_urls = item.announceUrls;
    }
    if (item.status) {
      post.downloadStatus = item.status;
      post.userVersion = item.userVersion ?? null;
    }
    if (item.files) post.files = item.files;
    access.set(post.postId, item.access);
    return post;
  });
  return { posts, stamp: view.context.libraryStamp, now: view.now, viewer: view.viewer, access };
}

/**
 * Is a listed post shown to everyone at `now`? Admins' listings hold disabled and scheduled posts
 * too: what is announced or offered to users (the feed, the mails, "Updates for you", the
 * admins' user view) keeps only these.
 */
export function isListedPostPublic(post: Pick<LibraryPost, "enabled" | "publish_at">, now: Date = new Date()): boolean {
  return isPostPublic({ enabled: post.enabled, publishAt: post.publish_at ? new Date(post.publish_at) : null }, now);
}

/** Recent listing bodies by viewer fingerprint, at the library version they were made at. */
const listingBodies = createCache<Buffer<ArrayBuffer>>(16);

/** The body of GET /api/library/posts, assembled from per-post JSON prepared once per change. */
export async function libraryPostsJson({ user, context }: { user: Viewer; context: ViewerContext }): Promise<Buffer<ArrayBuffer>> {
  const view = await viewerAndLibrary(user, { context });
  // A kept answer (app/models/reader-pages.server.ts) goes stale when the listing would change with no write.
  notePageTurnsAt(view.library.until);
  return listingBodies.get(
    view.context.fingerprint,
    view.library.stamp,
    async () => {
      const parts = viewPosts(view).map((item) => {
        let json = `${item.json},"unlocked":${item.access.explanation.allowed}`;
        if (item.status) json += `,"downloadStatus":"${item.status}","userVersion":${JSON.stringify(item.userVersion ?? null)}`;
        if (item.files) json += `,"files":${JSON.stringify(item.files)}`;
        return `${json}}`;
      });
      return { value: Buffer.from(`{"posts":[${parts.join(",")}]}`), until: view.library.until };
    },
    view.now.getTime(),
  );
}

/** Search by title and one of the library's filters (docs/product.md) (already validated). */
export function filterLibraryPosts(
  posts: LibraryPost[],
  { search, filter, tag = null }: { search: string; filter: LibraryFilter; tag?: string | null },
): LibraryPost[] {
  const needle = search.trim().toLowerCase();
  return posts.filter((post) => {
    if (needle && !post.title.toLowerCase().includes(needle)) return false;
    if (tag && !post.tags.some((item) => item.slug === tag)) return false;
    switch (filter) {
      case "unlocked":
        return post.unlocked;
      case "locked":
        return !post.unlocked;
      case "patreon":
        // Posts a support-platform tier unlocks (tier-gated, not shop-only).
        return post.paid_content && !post.is_kofiOnly && post.tiers.length > 0;
      case "outdated":
        return post.unlocked && post.downloadStatus === "outdated";
      case "never":
        return post.unlocked && post.downloadStatus === "never";
      case "works":
        return post.compatibility?.mark === "works";
      case "unconfirmed":
        return isUnconfirmedOnPatch(post);
      default:
        return true;
    }
  });
}

/** Is the post's current version not (yet) confirmed to work on the current game patch? False before the first patch day or without a file. */
export function isUnconfirmedOnPatch(post: Pick<LibraryPost, "compatibility">): boolean {
  return post.compatibility !== null && post.compatibility.mark !== "works";
}

/** The patch-day banner's numbers: of the listed posts with a file, how many work on the current patch. */
export function patchDayCounts(posts: readonly LibraryPost[]): { patch: string; confirmed: number; total: number } | null {
  const rated = posts.filter((post) => post.compatibility !== null);
  if (rated.length === 0) return null;
  return { patch: rated[0]!.compatibility!.patch, confirmed: rated.filter((post) => post.compatibility!.mark === "works").length, total: rated.length };
}
