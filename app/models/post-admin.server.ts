// Post administration (admins only; routes check who may): edit, create, delete, enable,
// reorder, front image and file. Each change is recorded in the audit log in its transaction and
// answers the post in the listing's shape. Refusals are DomainErrors. The post's versions belong to
// post-version.server.ts: this module calls it (`followPostFile`), never the other way round.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { db, type Prisma } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { InvalidImageError, reencodeImage } from "~/integrations/images.server";
import { isSafeKey, storage } from "~/integrations/storage.server";
import { recordAudit } from "~/models/audit.server";
import { ensureExtensionFile, toDbExtensionType } from "~/models/blender-extension.server";
import { followPostFile } from "~/models/post-version.server";
import { refreshStepTimes } from "~/models/release.server";
import type { PostWithAccess } from "~/models/entitlement.server";
import { DomainError } from "~/models/errors";
import { postImageKey, toLibraryPost, withAccess, type LibraryPost } from "~/models/library-listing.server";
import { LIBRARY_MESSAGES, type PostCreateInput, type PostUpdateInput } from "~/utils/library-schemas";
import { orderDateForIndex } from "~/utils/reorder";
import { displayVersion } from "~/utils/versions";

type Actor = Pick<User, "id">;

async function requirePost(id: string, client: Prisma.TransactionClient | typeof db = db): Promise<PostWithAccess> {
  const post = await client.post.findUnique({ where: { id }, include: withAccess });
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  return post;
}

function snapshot(post: PostWithAccess) {
  return toLibraryPost(post, true, true);
}

async function knownTierIds(client: Prisma.TransactionClient, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const tiers = await client.tier.findMany({ where: { id: { in: ids } }, select: { id: true } });
  const known = new Set(tiers.map((tier) => tier.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new DomainError(400, `Unknown tier: ${unknown[0]}`);
  return [...known];
}

/** Storage facts of a typed key: size and file name, when the object exists. */
async function fileFacts(key: string | null | undefined): Promise<{ fileSize: bigint | null; fileName: string | null } | undefined> {
  if (key === undefined) return undefined;
  if (key === null) return { fileSize: null, fileName: null };
  if (!isSafeKey(key)) throw new DomainError(400, "The drive file ID is not a valid storage key.");
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
  if (input.blender_extension !== undefined) data.blenderExtension = toDbExtensionType(input.blender_extension);
  if (input.shop_price_cents !== undefined) data.shopPriceCents = input.shop_price_cents;
  if (input.shop_currency !== undefined) data.shopCurrency = input.shop_currency;
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
    if (input.first_published_at !== undefined) await refreshStepTimes(tx, id);
    await followPostFile(tx, id, { labelGiven: input.version !== undefined });
    // A marked post's file must be an extension of its kind: refused here, nothing is saved.
    await ensureExtensionFile(tx, id);
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
    if (await tx.post.findUnique({ where: { id }, select: { id: true } })) throw new DomainError(409, "A post with this id already exists.");
    const { postId: _postId, publish_at: publishAt, ...fields } = input;
    const now = new Date();
    // A post scheduled at creation is hidden from everyone but admins until then, and first published then.
    const publishedAt = publishAt ?? now;
    await tx.post.create({
      data: {
        id,
        title: input.title,
        firstPublishedAt: publishedAt,
        publishedAt,
        publishAt: publishAt ?? null,
        lastUpdated: now,
        orderDate: now,
        ...(columnsOf(fields) as Omit<Prisma.PostCreateInput, "id" | "title">),
        ...(facts ?? {}),
      },
    });
    await replaceTiers(tx, id, fields);
    await followPostFile(tx, id, { labelGiven: true });
    await ensureExtensionFile(tx, id);
    const after = await requirePost(id, tx);
    await recordAudit({ actorId: actor.id, action: "post.create", targetType: "post", targetId: id, after: snapshot(after) }, tx);
    return after;
  });
  return snapshot(created);
}

export async function deletePost(actor: Actor, id: string): Promise<void> {
  let versionKeys: string[] = [];
  const removed = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    versionKeys = (await tx.postVersion.findMany({ where: { postId: id }, select: { storageKey: true } })).map((version) => version.storageKey);
    await tx.post.delete({ where: { id } });
    await recordAudit({ actorId: actor.id, action: "post.delete", targetType: "post", targetId: id, before: snapshot(before) }, tx);
    return before;
  });
  // Files this post owns alone (its image and uploads under posts/<id>/) go too.
  const store = await storage();
  if (removed.imageKey === postImageKey(id)) await store.delete(removed.imageKey);
  // Every version's file under posts/<id>/ goes with it.
  for (const key of new Set([removed.driveFileId, ...versionKeys])) if (key?.startsWith(`posts/${id}/`)) await store.delete(key);
}

export async function setPostEnabled(actor: Actor, id: string, enabled: boolean): Promise<LibraryPost> {
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { enabled } });
    await recordAudit(
      {
        actorId: actor.id,
        action: enabled ? "post.enable" : "post.disable",
        targetType: "post",
        targetId: id,
        before: { enabled: before.enabled },
        after: { enabled },
      },
      tx,
    );
    return requirePost(id, tx);
  });
  return snapshot(updated);
}

export async function setPostOrderDate(actor: Actor, id: string, orderDate: Date): Promise<LibraryPost> {
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { orderDate } });
    await recordAudit(
      {
        actorId: actor.id,
        action: "post.reorder",
        targetType: "post",
        targetId: id,
        before: { order_date: before.orderDate },
        after: { order_date: orderDate },
      },
      tx,
    );
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
    if (error instanceof InvalidImageError) throw new DomainError(400, error.message);
    throw error;
  }
  const key = postImageKey(id);
  await (await storage()).put(key, jpeg, "image/jpeg");
  const updated = await db.$transaction(async (tx) => {
    const before = await requirePost(id, tx);
    await tx.post.update({ where: { id }, data: { imageKey: key } });
    await recordAudit(
      {
        actorId: actor.id,
        action: "post.image",
        targetType: "post",
        targetId: id,
        before: { imageKey: before.imageKey },
        after: { imageKey: key, bytes: jpeg.length },
      },
      tx,
    );
    return requirePost(id, tx);
  });
  return snapshot(updated);
}

/** The post's id and title; refuses an unknown post with 404 (checked before reading a large upload). */
export async function getPostSummary(id: string): Promise<{ id: string; title: string }> {
  const post = await db.post.findUnique({ where: { id }, select: { id: true, title: true } });
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  return post;
}
