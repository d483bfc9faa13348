// Posts of the library: the listing each viewer sees (with `unlocked` from the entitlement rule
// and their download status), and the admin operations (edit, enable, reorder, image, file,
// create, delete), each recorded in the audit log in the same transaction.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Readable } from "node:stream";
import { MaxPartSizeExceededError, unstable_parseMultipartFormData } from "@remix-run/node";
import { apiError } from "~/api.server";
import { db, Prisma } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { reencodeImage, InvalidImageError } from "~/integrations/images.server";
import { isSafeKey, storage } from "~/integrations/storage.server";
import { recordAudit } from "~/models/audit.server";
import { loadViewerContext, toEntitlementPost, type PostWithTiers, type ViewerContext } from "~/models/entitlement.server";
import { canDownload, type EntitlementPost, isEffectiveAdmin } from "~/utils/entitlement";
import type { LibraryFilter, PostCreateInput, PostUpdateInput } from "~/utils/library-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { orderDateForIndex } from "~/utils/reorder";
import { displayVersion, downloadStatus, type DownloadStatus } from "~/utils/versions";

type Viewer = Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId"> | null;
type Actor = Pick<User, "id">;

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
  unlocked: boolean;
  /** Only for logged-in viewers. */
  downloadStatus?: DownloadStatus;
  userVersion?: string | null;
};

const withTiers = { tiers: { select: { tierId: true, kind: true } } } as const;

export function postImageKey(postId: string) {
  return `images/posts/${postId}.jpg`;
}

const POST_IMAGE_KEY = /^images\/posts\/([A-Za-z0-9_-]{1,64})\.(?:jpg|png|webp)$/;

/**
 * Who may see a stored image: "public" for every image but a disabled post's front, which only
 * admins see ("admin": serve it privately, uncached); "hidden" answers 404 like a missing file.
 */
export async function storedImageAudience(key: string, viewer: () => Promise<Pick<User, "isAdmin" | "restricted"> | null>): Promise<"public" | "admin" | "hidden"> {
  const match = POST_IMAGE_KEY.exec(key);
  if (!match) return "public";
  const post = await db.post.findUnique({ where: { id: match[1]! }, select: { enabled: true, imageKey: true } });
  if (!post || post.imageKey !== key || post.enabled) return "public";
  const user = await viewer();
  return isEffectiveAdmin(user) ? "admin" : "hidden";
}

function imageUrl(post: PostWithTiers): string | null {
  if (!post.imageKey?.startsWith("images/")) return null;
  // The version changes whenever the post row does, so the image can be cached forever.
  return `/media/${post.imageKey.slice("images/".length)}?v=${post.updatedAt.getTime().toString(36)}`;
}

function toLibraryPost(post: PostWithTiers, unlocked: boolean, admin: boolean, downloaded?: Map<string, string>): LibraryPost {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const result: LibraryPost = {
    postId: post.id,
    title: post.title,
    imageUrl: imageUrl(post),
    enabled: post.enabled,
    paid_content: post.paidContent,
    is_content: post.isContent,
    url: post.url,
    kofi_id: post.kofiId,
    fileName: post.fileName,
    fileSize: post.fileSize === null ? null : Number(post.fileSize),
    version: displayVersion(post.version),
    tiers: post.tiers.filter((tier) => tier.kind === "CURRENT").map((tier) => tier.tierId),
    first_tiers: post.tiers.filter((tier) => tier.kind === "FIRST").map((tier) => tier.tierId),
    first_published_at: iso(post.firstPublishedAt),
    published_at: iso(post.publishedAt),
    last_updated: iso(post.lastUpdated),
    order_date: post.orderDate.toISOString(),
    is_kofiOnly: post.isKofiOnly,
    unlocked,
  };
  if (admin) result.drive_file_id = post.driveFileId;
  if (downloaded) {
    const version = downloaded.get(post.id);
    result.downloadStatus = downloadStatus(post.version, version === undefined ? null : { version });
    result.userVersion = version ?? null;
  }
  return result;
}

/**
 * The posts as stored, shaped once per change of the posts table and kept in memory: the
 * library version (bumped by database triggers, read with the viewer's entitlements) tells every
 * app server when to reload, so several servers stay correct without talking to each other.
 */
type LibrarySnapshot = {
  stamp: string;
  posts: { row: PostWithTiers; entitlement: EntitlementPost; base: LibraryPost; publicJson: string; adminJson: string }[];
};

let cachedLibrary: LibrarySnapshot | undefined;
let loading: Promise<LibrarySnapshot> | undefined;

/** JSON of an object without its closing brace, so per-viewer fields can be appended. */
function openJson(value: object): string {
  return JSON.stringify(value).slice(0, -1);
}

async function loadSnapshot(stamp: string): Promise<LibrarySnapshot> {
  if (cachedLibrary?.stamp === stamp) return cachedLibrary;
  loading ??= (async () => {
    try {
      // Rows read after the stamp are at least as new as it; a change in between only means
      // one more reload on the next request.
      const rows = await db.post.findMany({ orderBy: [{ orderDate: "desc" }, { id: "asc" }], include: withTiers });
      const posts = rows.map((row) => {
        const { unlocked: _unlocked, drive_file_id: _key, ...shared } = toLibraryPost(row, false, true);
        return {
          row,
          entitlement: toEntitlementPost(row),
          base: { ...shared, unlocked: false },
          publicJson: openJson(shared),
          adminJson: openJson({ ...shared, drive_file_id: row.driveFileId }),
        };
      });
      cachedLibrary = { stamp, posts };
      return cachedLibrary;
    } finally {
      loading = undefined;
    }
  })();
  return loading;
}

type ViewedPost = { base: LibraryPost; driveFileId: string | null; json: string; unlocked: boolean; status?: DownloadStatus; userVersion?: string | null };

/** What the listing needs about its viewer (see `loadRequestViewer`). */
export const LISTING_VIEWER = { withDownloads: true, withLibraryStamp: true } as const;

async function viewerAndLibrary(user: Viewer, preloaded?: ViewerContext) {
  const admin = isEffectiveAdmin(user);
  const context = preloaded ?? (await loadViewerContext(user, LISTING_VIEWER));
  const library = await loadSnapshot(context.libraryStamp);
  return { admin, context, library, key: `${library.stamp}|${context.fingerprint}` };
}

function viewPosts({ admin, context, library }: Awaited<ReturnType<typeof viewerAndLibrary>>): ViewedPost[] {
  const viewed: ViewedPost[] = [];
  for (const post of library.posts) {
    if (!admin && !post.row.enabled) continue;
    const item: ViewedPost = {
      base: post.base,
      driveFileId: post.row.driveFileId,
      json: admin ? post.adminJson : post.publicJson,
      unlocked: canDownload(post.entitlement, context.viewer),
    };
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
 * Every post the viewer may see, newest order date first: admins see disabled posts too and the
 * storage keys of files. Logged-in viewers get their download status per post.
 */
export async function listLibraryPosts(user: Viewer): Promise<LibraryPost[]> {
  const view = await viewerAndLibrary(user);
  return viewPosts(view).map((item) => {
    const post: LibraryPost = { ...item.base, unlocked: item.unlocked };
    if (view.admin) post.drive_file_id = item.driveFileId;
    if (item.status) {
      post.downloadStatus = item.status;
      post.userVersion = item.userVersion ?? null;
    }
    return post;
  });
}

/** Recent listing bodies by (library stamp, viewer fingerprint): a repeated request is a lookup. */
const RECENT_BODIES = 16;
const recentBodies = new Map<string, Buffer>();

/** The body of GET /api/library/posts, assembled from per-post JSON prepared once per change. */
export async function libraryPostsJson({ user, context }: { user: Viewer; context: ViewerContext }): Promise<Buffer> {
  const view = await viewerAndLibrary(user, context);
  const known = recentBodies.get(view.key);
  if (known) return known;
  const parts = viewPosts(view).map((item) => {
    let json = `${item.json},"unlocked":${item.unlocked}`;
    if (item.status) json += `,"downloadStatus":"${item.status}","userVersion":${JSON.stringify(item.userVersion ?? null)}`;
    return `${json}}`;
  });
  const body = Buffer.from(`{"posts":[${parts.join(",")}]}`);
  recentBodies.set(view.key, body);
  if (recentBodies.size > RECENT_BODIES) recentBodies.delete(recentBodies.keys().next().value!);
  return body;
}

/** Search by title and one of the library's filters (docs/product.md) (already validated). */
export function filterLibraryPosts(posts: LibraryPost[], { search, filter }: { search: string; filter: LibraryFilter }): LibraryPost[] {
  const needle = search.trim().toLowerCase();
  return posts.filter((post) => {
    if (needle && !post.title.toLowerCase().includes(needle)) return false;
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
      default:
        return true;
    }
  });
}

async function requirePost(id: string, client: Prisma.TransactionClient | typeof db = db): Promise<PostWithTiers> {
  const post = await client.post.findUnique({ where: { id }, include: withTiers });
  if (!post) throw apiError(404, LIBRARY_MESSAGES.postNotFound);
  return post;
}

function snapshot(post: PostWithTiers) {
  return toLibraryPost(post, true, true);
}

async function knownTierIds(client: Prisma.TransactionClient, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const tiers = await client.tier.findMany({ where: { id: { in: ids } }, select: { id: true } });
  const known = new Set(tiers.map((tier) => tier.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw apiError(400, `Unknown tier: ${unknown[0]}`);
  return [...known];
}

/** Storage facts of a typed key: size and file name, when the object exists. */
async function fileFacts(key: string | null | undefined): Promise<{ fileSize: bigint | null; fileName: string | null } | undefined> {
  if (key === undefined) return undefined;
  if (key === null) return { fileSize: null, fileName: null };
  if (!isSafeKey(key)) throw apiError(400, "The drive file ID is not a valid storage key.");
  const info = await (await storage()).stat(key);
  return { fileSize: info ? BigInt(info.size) : null, fileName: path.posix.basename(key) };
}

function columnsOf(input: PostUpdateInput): Prisma.PostUpdateInput {
  const data: Prisma.PostUpdateInput = {};
  if (input.title !== undefined) data.title = input.title;
  if (input.version !== undefined) data.version = displayVersion(input.version);
  if (input.kofi_id !== undefined) data.kofiId = input.kofi_id;
  if (input.drive_file_id !== undefined) data.driveFileId = input.drive_file_id;
  if (input.url !== undefined) data.url = input.url;
  if (input.paid_content !== undefined) data.paidContent = input.paid_content;
  if (input.is_content !== undefined) data.isContent = input.is_content;
  if (input.is_kofiOnly !== undefined) data.isKofiOnly = input.is_kofiOnly;
  if (input.enabled !== undefined) data.enabled = input.enabled;
  if (input.first_published_at !== undefined) data.firstPublishedAt = input.first_published_at;
  if (input.published_at !== undefined) data.publishedAt = input.published_at;
  if (input.last_updated !== undefined) data.lastUpdated = input.last_updated;
  return data;
}

async function replaceTiers(client: Prisma.TransactionClient, postId: string, input: PostUpdateInput) {
  for (const [kind, ids] of [
    ["CURRENT", input.tiers],
    ["FIRST", input.first_tiers],
  ] as const) {
    if (ids === undefined) continue;
    const known = await knownTierIds(client, [...new Set(ids)]);
    await client.postTier.deleteMany({ where: { postId, kind } });
    if (known.length > 0) await client.postTier.createMany({ data: known.map((tierId) => ({ postId, tierId, kind })) });
  }
  // Tier links are part of the post: its update time (shown as the record's, and versioning its
  // image address) changes with them.
  if (input.tiers !== undefined || input.first_tiers !== undefined) await client.post.update({ where: { id: postId }, data: { updatedAt: new Date() } });
}

export async function updatePost(actor: Actor, id: string, input: PostUpdateInput): Promise<LibraryPost> {
  const facts = await fileFacts(input.drive_file_id);
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { ...columnsOf(input), ...(facts ?? {}) } });
    await replaceTiers(tx, id, input);
    const after = await requirePost(id, tx);
    await recordAudit({ actorId: actor.id, action: "post.update", targetType: "post", targetId: id, before: snapshot(before), after: snapshot(after) }, tx);
    return after;
  });
  return snapshot(updated);
}

export async function createPost(actor: Actor, input: PostCreateInput): Promise<LibraryPost> {
  const id = input.postId ?? `p${randomBytes(6).toString("hex")}`;
  const facts = await fileFacts(input.drive_file_id);
  const created = await db.$transaction(async (tx) => {
    if (await tx.post.findUnique({ where: { id }, select: { id: true } })) throw apiError(409, "A post with this id already exists.");
    const { postId: _postId, ...fields } = input;
    const now = new Date();
    await tx.post.create({
      data: {
        id,
        title: input.title,
        firstPublishedAt: now,
        publishedAt: now,
        lastUpdated: now,
        orderDate: now,
        ...(columnsOf(fields) as Omit<Prisma.PostCreateInput, "id" | "title">),
        ...(facts ?? {}),
      },
    });
    await replaceTiers(tx, id, fields);
    const after = await requirePost(id, tx);
    await recordAudit({ actorId: actor.id, action: "post.create", targetType: "post", targetId: id, after: snapshot(after) }, tx);
    return after;
  });
  return snapshot(created);
}

export async function deletePost(actor: Actor, id: string): Promise<void> {
  const removed = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.delete({ where: { id } });
    await recordAudit({ actorId: actor.id, action: "post.delete", targetType: "post", targetId: id, before: snapshot(before) }, tx);
    return before;
  });
  // Files this post owns alone (its image and uploads under posts/<id>/) go too.
  const store = await storage();
  if (removed.imageKey === postImageKey(id)) await store.delete(removed.imageKey);
  if (removed.driveFileId?.startsWith(`posts/${id}/`)) await store.delete(removed.driveFileId);
}

export async function setPostEnabled(actor: Actor, id: string, enabled: boolean): Promise<LibraryPost> {
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { enabled } });
    await recordAudit({ actorId: actor.id, action: enabled ? "post.enable" : "post.disable", targetType: "post", targetId: id, before: { enabled: before.enabled }, after: { enabled } }, tx);
    return requirePost(id, tx);
  });
  return snapshot(updated);
}

export async function setPostOrderDate(actor: Actor, id: string, orderDate: Date): Promise<LibraryPost> {
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { orderDate } });
    await recordAudit({ actorId: actor.id, action: "post.reorder", targetType: "post", targetId: id, before: { order_date: before.orderDate }, after: { order_date: orderDate } }, tx);
    return requirePost(id, tx);
  });
  return snapshot(updated);
}

/** Set Index: moves a post to position `index` (0 = first) of the whole library order. */
export async function movePostToIndex(actor: Actor, id: string, index: number): Promise<LibraryPost> {
  await requirePost(id);
  const others = await db.post.findMany({
    where: { id: { not: id } },
    orderBy: [{ orderDate: "desc" }, { id: "asc" }],
    select: { orderDate: true },
  });
  return setPostOrderDate(actor, id, orderDateForIndex(others, index));
}

/** Stores a new front image (validated by content, re-encoded as JPEG). */
export async function setPostImage(actor: Actor, id: string, upload: Buffer): Promise<LibraryPost> {
  await requirePost(id);
  let jpeg: Buffer;
  try {
    jpeg = await reencodeImage(upload, { maxWidth: 1280, maxHeight: 1280 });
  } catch (error) {
    if (error instanceof InvalidImageError) throw apiError(400, error.message);
    throw error;
  }
  const key = postImageKey(id);
  await (await storage()).put(key, jpeg, "image/jpeg");
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { imageKey: key } });
    await recordAudit({ actorId: actor.id, action: "post.image", targetType: "post", targetId: id, before: { imageKey: before.imageKey }, after: { imageKey: key, bytes: jpeg.length } }, tx);
    return requirePost(id, tx);
  });
  return snapshot(updated);
}

/** A storage-safe file name from an uploaded one. */
export function safeFileName(name: string): string {
  const base = path.posix.basename(name.replace(/\\/g, "/"));
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "").slice(-120);
  return cleaned || "file.bin";
}

/**
 * Streams the `file` part of a multipart request straight into storage (never whole in memory)
 * under posts/<id>/<name>, refusing more than `maxBytes`, then points the post at it.
 */
export async function uploadPostFile(actor: Actor, id: string, request: Request, maxBytes: number): Promise<LibraryPost> {
  await requirePost(id);
  if (!request.headers.get("Content-Type")?.startsWith("multipart/form-data")) throw apiError(400, "Please select a file first.");
  const declared = Number(request.headers.get("Content-Length") ?? 0);
  if (declared > maxBytes + 64 * 1024) throw apiError(413, "The file is too large.");
  const store = await storage();
  let stored: { key: string; size: number; fileName: string } | undefined;
  try {
    await unstable_parseMultipartFormData(request, async ({ name, data, filename }) => {
      if (name !== "file" || !filename || stored) {
        for await (const _chunk of data) {
          // Other parts are skipped without being kept.
        }
        return undefined;
      }
      const fileName = safeFileName(filename);
      const key = `posts/${id}/${fileName}`;
      let size = 0;
      async function* capped() {
        for await (const chunk of data) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new MaxPartSizeExceededError("file", maxBytes);
          yield chunk;
        }
      }
      const result = await store.put(key, Readable.from(capped()), "application/octet-stream");
      stored = { key, size: result.size, fileName };
      return undefined;
    });
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) throw apiError(413, "The file is too large.");
    if (error instanceof Response) throw error;
    throw apiError(400, "The upload could not be read.");
  }
  if (!stored || stored.size === 0) throw apiError(400, "Please select a file first.");
  const file = stored;
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { driveFileId: file.key, fileName: file.fileName, fileSize: BigInt(file.size) } });
    await recordAudit({ actorId: actor.id, action: "post.file", targetType: "post", targetId: id, before: { drive_file_id: before.driveFileId }, after: { drive_file_id: file.key, fileSize: file.size } }, tx);
    return requirePost(id, tx);
  });
  return snapshot(updated);
}

/** Throws a 404 JSON error for an unknown post (before reading a large upload). */
export async function getPostSummary(id: string): Promise<{ id: string; title: string }> {
  const post = await db.post.findUnique({ where: { id }, select: { id: true, title: true } });
  if (!post) throw apiError(404, LIBRARY_MESSAGES.postNotFound);
  return post;
}
