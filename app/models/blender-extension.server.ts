// Posts marked as Blender extensions (docs/product.md#blender-extensions): the file of such a
// post must be an extension ZIP whose blender_manifest.toml passes the check of
// app/utils/blender-manifest.ts. The check runs on upload (storePostVersionFile) and when a post
// is marked or its current version changes (ensureExtensionFile, inside the change's
// transaction, so a refusal leaves nothing written). The checked manifest is kept on the version.
import type { Prisma } from "~/db.server";
import type { BlenderExtensionType as DbExtensionType } from "~/generated/prisma/enums";
import type { Storage } from "~/integrations/storage.server";
import { storage } from "~/integrations/storage.server";
import { listZipEntries, looksLikeZip, readZipEntry, UnreadableZipError, type ZipEntry } from "~/integrations/zip.server";
import { DomainError } from "~/models/errors";
import {
  BLENDER_MESSAGES,
  blenderManifestPath,
  checkBlenderManifest,
  MAX_BLENDER_MANIFEST_BYTES,
  wrongTypeMessage,
  type BlenderExtensionType,
  type BlenderManifest,
} from "~/utils/blender-manifest";
import { VERSION_MESSAGES } from "~/utils/version-schemas";

/** The column's value for a kind, and back. */
export function toDbExtensionType(type: BlenderExtensionType | null): DbExtensionType | null {
  if (type === null) return null;
  return type === "add-on" ? "ADD_ON" : "THEME";
}

export function fromDbExtensionType(type: DbExtensionType | null): BlenderExtensionType | null {
  if (type === null) return null;
  return type === "ADD_ON" ? "add-on" : "theme";
}

/**
 * The checked manifest of a stored ZIP for a post marked `marked`, or a 400 naming what is
 * missing or malformed. `entries`: the ZIP's central directory when already read (null: not a ZIP).
 */
export async function checkExtensionFile(store: Storage, key: string, entries: ZipEntry[] | null, marked: BlenderExtensionType): Promise<BlenderManifest> {
  if (!entries) throw new DomainError(400, BLENDER_MESSAGES.notZip, { code: "blender-manifest" });
  const path = blenderManifestPath(entries.map((entry) => entry.path));
  if (!path) throw new DomainError(400, BLENDER_MESSAGES.missing, { code: "blender-manifest" });
  let bytes: Buffer | null;
  try {
    bytes = await readZipEntry(store, key, path, MAX_BLENDER_MANIFEST_BYTES);
  } catch (error) {
    if (error instanceof UnreadableZipError) throw new DomainError(400, VERSION_MESSAGES.unreadableZip, { code: "unreadable-zip" });
    throw error;
  }
  if (!bytes) throw new DomainError(400, BLENDER_MESSAGES.missing, { code: "blender-manifest" });
  const checked = checkBlenderManifest(bytes.toString("utf8"));
  if (!checked.ok) throw new DomainError(400, checked.message, { code: "blender-manifest" });
  if (checked.manifest.type !== marked) throw new DomainError(400, wrongTypeMessage(marked, checked.manifest.type), { code: "blender-manifest" });
  return checked.manifest;
}

/**
 * After a post's marking or current version changed (in that change's transaction): a marked
 * post must have a current version whose file is an extension of its kind. A version already
 * checked as that kind is not read again; another is read from storage and its manifest kept.
 */
export async function ensureExtensionFile(tx: Prisma.TransactionClient, postId: string): Promise<void> {
  const post = await tx.post.findUniqueOrThrow({ where: { id: postId }, select: { blenderExtension: true, currentVersion: true } });
  const marked = fromDbExtensionType(post.blenderExtension);
  if (!marked) return;
  const version = post.currentVersion;
  if (!version) throw new DomainError(400, BLENDER_MESSAGES.noFile, { code: "blender-manifest" });
  const kept = version.blenderManifest as BlenderManifest | null;
  if (kept && kept.type === marked) return;
  const store = await storage();
  const entries = (version.zipEntries as ZipEntry[] | null) ?? (looksLikeZip(version.fileName) ? await entriesOf(store, version.storageKey) : null);
  const manifest = await checkExtensionFile(store, version.storageKey, entries, marked);
  await tx.postVersion.update({ where: { id: version.id }, data: { blenderManifest: manifest } });
}

/** The central directory of a version whose entries were never read (a typed key, a migrated file). */
async function entriesOf(store: Storage, key: string): Promise<ZipEntry[] | null> {
  try {
    return await listZipEntries(store, key);
  } catch (error) {
    if (error instanceof UnreadableZipError) throw new DomainError(400, VERSION_MESSAGES.unreadableZip, { code: "unreadable-zip" });
    throw error;
  }
}
