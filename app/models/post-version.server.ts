// Post versions (docs/decisions/011-post-versions.md): every file uploaded for a post is
// a row of post_versions with its label, Markdown notes, size, SHA-256 (computed while the upload
// streams), content hash and, for ZIPs, the central directory's entries. The post mirrors its
// current version (version label, file key, name, size); older versions stay downloadable unless
// an admin hides them. Admin changes are audited in their transaction; refusals are DomainErrors.
// Histories as cards show them: post-version-history.server.ts; the hashing of migrated files:
// post-version-backfill.server.ts.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { pipeline, Readable } from "node:stream";
import { db, Prisma } from "~/db.server";
import type { PostVersion, User } from "~/generated/prisma/client";
import { storage, type Storage } from "~/integrations/storage.server";
import { listZipEntries, looksLikeZip, TooManyZipEntriesError, UnreadableZipError, type ZipEntry } from "~/integrations/zip.server";
import { recordAudit } from "~/models/audit.server";
import { checkExtensionFile, ensureExtensionFile, fromDbExtensionType } from "~/models/blender-extension.server";
import { DomainError } from "~/models/errors";
import { toLibraryPost, withAccess, type LibraryPost } from "~/models/library-listing.server";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { hashingStream } from "~/utils/upload-hash.server";
import type { IncomingFile } from "~/utils/upload.server";
import { SELECT_FILE_MESSAGE } from "~/utils/upload.server";
import { MAX_ZIP_ENTRIES, VERSION_MESSAGES, versionUploadSchema, type VersionUploadInput } from "~/utils/version-schemas";
import { displayVersion } from "~/utils/versions";
import type { BlenderManifest } from "~/utils/blender-manifest";
import { errorFields, log } from "~/logger.server";
import { parseInput } from "~/utils/input-words";

type Admin = Pick<User, "id" | "isAdmin" | "restricted">;

/** Every change here is an admin's; the routes check first, this holds when they forget. */
function requireAdminActor(actor: Admin): void {
  if (!isEffectiveAdmin(actor)) throw new DomainError(403, LIBRARY_MESSAGES.adminOnly);
}

/** The label and notes sent with an upload, by the one schema the form and the API share. */
export function versionInputOf(fields: Record<string, string>): VersionUploadInput {
  const parsed = parseInput(versionUploadSchema, fields);
  if (!parsed.success) throw new DomainError(400, parsed.error.issues[0]?.message ?? LIBRARY_MESSAGES.fileUploadFailed);
  return parsed.data;
}

/** A version's file as stored and hashed, before any row points at it. */
export type StoredVersionFile = {
  postId: string;
  key: string;
  fileName: string;
  size: number;
  sha256: string;
  contentHash: string;
  zipEntries: ZipEntry[] | null;
  /** For a post marked as a Blender extension, the file's checked blender_manifest.toml. */
  blenderManifest: BlenderManifest | null;
  input: VersionUploadInput;
};

/** A storage-safe file name from an uploaded one. */
function safeFileName(name: string): string {
  const base = path.posix.basename(name.replace(/\\/g, "/"));
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(-120);
  return cleaned || "file.bin";
}

/**
 * A storage key no version of the post uses and nothing occupies: `posts/<id>/<name>` as
 * documented, or `posts/<id>/<token>/<name>` when that one holds an earlier version (older
 * versions stay downloadable, so a new upload never replaces their bytes).
 */
async function freeVersionKey(store: Storage, postId: string, fileName: string): Promise<string> {
  const plain = `posts/${postId}/${fileName}`;
  const taken = async (key: string) =>
    (await db.postVersion.count({ where: { storageKey: key } })) > 0 ||
    (await db.versionFile.count({ where: { storageKey: key } })) > 0 ||
    (await db.post.count({ where: { driveFileId: key } })) > 0 ||
    (await store.stat(key)) !== null;
  if (!(await taken(plain))) return plain;
  for (;;) {
    const key = `posts/${postId}/${randomBytes(4).toString("hex")}/${fileName}`;
    if (!(await taken(key))) return key;
  }
}

/**
 * Reads a stored ZIP's central directory; a corrupt one, or one with more than MAX_ZIP_ENTRIES
 * entries (refused before they are read), is deleted and refused.
 */
async function zipEntriesOrRefuse(store: Storage, key: string): Promise<ZipEntry[]> {
  try {
    return await listZipEntries(store, key, { maxEntries: MAX_ZIP_ENTRIES });
  } catch (error) {
    await store.delete(key);
    if (error instanceof UnreadableZipError) throw new DomainError(400, VERSION_MESSAGES.unreadableZip, { code: "unreadable-zip" });
    if (error instanceof TooManyZipEntriesError) throw new DomainError(400, VERSION_MESSAGES.tooManyZipEntries, { code: "too-many-zip-entries" });
    throw error;
  }
}

/**
 * Streams an uploaded file into storage, hashing it on the way (SHA-256, content hash, size:
 * one pass, the file is never read again for them). A ZIP (by its first bytes) then has its
 * central directory read once; a corrupt or truncated one is deleted and refused. Nothing points
 * at the stored file until `addPostVersion`.
 */
export async function storePostVersionFile(postId: string, file: IncomingFile): Promise<StoredVersionFile> {
  const input = versionInputOf(file.fields);
  const post = await db.post.findUnique({ where: { id: postId }, select: { id: true, blenderExtension: true } });
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  const store = await storage();
  const fileName = safeFileName(file.fileName);
  const key = await freeVersionKey(store, postId, fileName);
  let head = Buffer.alloc(0);
  async function* watched() {
    for await (const chunk of file.data) {
      if (head.length < 4) head = Buffer.concat([head, Buffer.from(chunk.subarray(0, 4 - head.length))]);
      yield chunk;
    }
  }
  const hashing = hashingStream();
  // pipeline passes a failure of the upload (too large, cut off) on to what storage reads.
  const body = pipeline(Readable.from(watched()), hashing.stream, () => undefined);
  await store.put(key, body, "application/octet-stream");
  const digest = hashing.digest();
  if (digest.size === 0) {
    await store.delete(key);
    throw new DomainError(400, SELECT_FILE_MESSAGE);
  }
  const zipEntries = looksLikeZip(fileName, head) ? await zipEntriesOrRefuse(store, key) : null;
  // A post marked as a Blender extension takes only an extension ZIP of its kind.
  const marked = fromDbExtensionType(post.blenderExtension);
  let blenderManifest: BlenderManifest | null = null;
  if (marked) {
    try {
      blenderManifest = await checkExtensionFile(store, key, zipEntries, marked);
    } catch (error) {
      await store.delete(key);
      throw error;
    }
  }
  return { postId, key, fileName, size: digest.size, sha256: digest.sha256, contentHash: digest.contentHash, zipEntries, blenderManifest, input };
}

async function postSnapshot(tx: Prisma.TransactionClient, id: string): Promise<LibraryPost> {
  const post = await tx.post.findUniqueOrThrow({ where: { id }, include: withAccess });
  return toLibraryPost(post, true, true);
}

/**
 * Makes a stored file the post's new current version, in one transaction: the version row, the
 * post's label, file key, name, size, last-updated date and current version, and the audit
 * entry. On any refusal or failure the stored file is deleted, so nothing is left behind.
 */
export async function addPostVersion(actor: Admin, stored: StoredVersionFile): Promise<{ post: LibraryPost; version: PostVersion }> {
  try {
    requireAdminActor(actor);
    return await db.$transaction(async (tx) => {
      const before = await tx.post.findUnique({ where: { id: stored.postId } });
      if (!before) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
      const label = stored.input.label ?? displayVersion(before.version);
      const now = new Date();
      const version = await tx.postVersion.create({
        data: {
          postId: stored.postId,
          label,
          notes: stored.input.notes,
          storageKey: stored.key,
          fileName: stored.fileName,
          size: BigInt(stored.size),
          sha256: stored.sha256,
          contentHash: stored.contentHash,
          ...(stored.zipEntries ? { zipEntries: stored.zipEntries } : {}),
          ...(stored.blenderManifest ? { blenderManifest: stored.blenderManifest } : {}),
          createdAt: now,
        },
      });
      await tx.post.update({
        where: { id: stored.postId },
        data: {
          version: label,
          driveFileId: stored.key,
          fileName: stored.fileName,
          fileSize: BigInt(stored.size),
          lastUpdated: now,
          currentVersionId: version.id,
        },
      });
      // Marked after the file was checked (or not checked): the check runs here, in the transaction.
      await ensureExtensionFile(tx, stored.postId);
      await recordAudit(
        {
          actorId: actor.id,
          action: "post.file",
          targetType: "post",
          targetId: stored.postId,
          before: { drive_file_id: before.driveFileId, version: before.version, versionId: before.currentVersionId },
          after: { drive_file_id: stored.key, fileSize: stored.size, version: label, versionId: version.id, sha256: stored.sha256 },
        },
        tx,
      );
      return { post: await postSnapshot(tx, stored.postId), version };
    });
  } catch (error) {
    await (await storage()).delete(stored.key).catch((deleteError: unknown) => log().error(errorFields(deleteError), "Could not delete a refused upload"));
    throw error;
  }
}

/**
 * Keeps the current version in step after the post's own fields changed (Save, PUT with a typed
 * `drive_file_id` or `version`): a typed key that is none of its versions becomes a new version
 * (hashed later by the versions job), a key of an older version makes that one current again,
 * no key leaves no current version, and a new label renames the current version.
 */
export async function followPostFile(tx: Prisma.TransactionClient, postId: string, { labelGiven }: { labelGiven: boolean }): Promise<void> {
  const post = await tx.post.findUniqueOrThrow({ where: { id: postId }, include: { currentVersion: true } });
  if (!post.driveFileId) {
    if (post.currentVersionId) await tx.post.update({ where: { id: postId }, data: { currentVersionId: null } });
    return;
  }
  const label = displayVersion(post.version);
  if (post.currentVersion?.storageKey === post.driveFileId) {
    if (post.currentVersion.label !== label) await tx.postVersion.update({ where: { id: post.currentVersion.id }, data: { label } });
    return;
  }
  const existing = await tx.postVersion.findFirst({ where: { postId, storageKey: post.driveFileId }, orderBy: { createdAt: "desc" } });
  if (existing) {
    if (labelGiven && existing.label !== label) await tx.postVersion.update({ where: { id: existing.id }, data: { label } });
    await tx.post.update({ where: { id: postId }, data: { currentVersionId: existing.id, version: labelGiven ? label : existing.label } });
    if (existing.hidden) await tx.postVersion.update({ where: { id: existing.id }, data: { hidden: false } });
    return;
  }
  const created = await tx.postVersion.create({
    data: { postId, label, storageKey: post.driveFileId, fileName: post.fileName ?? post.driveFileId.split("/").pop()!, size: post.fileSize ?? BigInt(0) },
  });
  await tx.post.update({ where: { id: postId }, data: { currentVersionId: created.id } });
}

async function requireVersion(tx: Prisma.TransactionClient, postId: string, versionId: string) {
  const version = await tx.postVersion.findFirst({ where: { id: versionId, postId }, include: { currentOf: { select: { id: true } } } });
  if (!version) throw new DomainError(404, VERSION_MESSAGES.versionNotFound);
  return version;
}

/** Hides a version from users (or shows it again). The current version cannot be hidden. */
export async function setVersionHidden(actor: Admin, postId: string, versionId: string, hidden: boolean): Promise<PostVersion> {
  requireAdminActor(actor);
  return db.$transaction(async (tx) => {
    const version = await requireVersion(tx, postId, versionId);
    if (hidden && version.currentOf) throw new DomainError(409, VERSION_MESSAGES.cannotHideCurrent);
    const updated = await tx.postVersion.update({ where: { id: versionId }, data: { hidden } });
    await recordAudit(
      {
        actorId: actor.id,
        action: hidden ? "post.version.hide" : "post.version.show",
        targetType: "post",
        targetId: postId,
        before: { versionId, label: version.label, hidden: version.hidden },
        after: { versionId, label: version.label, hidden },
      },
      tx,
    );
    return updated;
  });
}

/** Makes an older version current again: the post's label, file key, name and size follow it. */
export async function makeVersionCurrent(actor: Admin, postId: string, versionId: string): Promise<LibraryPost> {
  requireAdminActor(actor);
  return db.$transaction(async (tx) => {
    const version = await requireVersion(tx, postId, versionId);
    if (version.currentOf) throw new DomainError(409, VERSION_MESSAGES.alreadyCurrent);
    if (version.hidden) throw new DomainError(409, VERSION_MESSAGES.cannotMakeHiddenCurrent);
    const before = await tx.post.findUniqueOrThrow({ where: { id: postId } });
    await tx.post.update({
      where: { id: postId },
      data: { version: version.label, driveFileId: version.storageKey, fileName: version.fileName, fileSize: version.size, currentVersionId: version.id },
    });
    await ensureExtensionFile(tx, postId);
    await recordAudit(
      {
        actorId: actor.id,
        action: "post.version.current",
        targetType: "post",
        targetId: postId,
        before: { versionId: before.currentVersionId, version: before.version, drive_file_id: before.driveFileId },
        after: { versionId: version.id, version: version.label, drive_file_id: version.storageKey },
      },
      tx,
    );
    return postSnapshot(tx, postId);
  });
}

/** The version a download serves: the current one, or a named visible version of the same post. */
export async function downloadableVersion(postId: string, versionId: string): Promise<PostVersion> {
  const version = await db.postVersion.findFirst({ where: { id: versionId, postId, hidden: false } });
  if (!version) throw new DomainError(404, VERSION_MESSAGES.versionNotFound);
  return version;
}
