// The files of a version (docs/product.md#files-of-a-version, docs/decisions/022-version-files.md):
// its main file is the version row's own; variants, optional add-ons and translations are rows of
// version_files, each with an optional gate of its own. Who may download which file is the
// entitlement rule's (`explainFileAccess` in app/utils/entitlement.ts); this module loads files,
// lists them as the post page, the cards and the API show them, and adds and removes them for
// admins. A removed file keeps its row (`removed_at`) for the download records that name it, and
// is left out of everything else.
import { db, Prisma, queryRows } from "~/db.server";
import type { User, VersionFile } from "~/generated/prisma/client";
import type { FileRole } from "~/generated/prisma/enums";
import { storage } from "~/integrations/storage.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import type { StoredVersionFile } from "~/models/post-version.server";
import { accessOf, type LibraryListing, type LibraryPost } from "~/models/library-listing.server";
import { explainFileAccess, isEffectiveAdmin, isFreeAt, postForFile, type EntitlementPost, type EntitlementViewer } from "~/utils/entitlement";
import { requirementAccessWords } from "~/utils/requirements";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { versionFileSchema, type VersionFileInput } from "~/utils/version-file-schemas";
import { VERSION_FILE_MESSAGES, type FileRoleName } from "~/utils/version-file-words";
import { VERSION_MESSAGES } from "~/utils/version-schemas";
import { gateOf, ROLE_NAMES } from "~/utils/version-file-views";
import { errorFields, log } from "~/logger.server";
import { parseInput } from "~/utils/input-words";

// The shaping is pure and shared with the library listing (which this module's imports reach).
export { fileViews, gateOf, type FileView } from "~/utils/version-file-views";

type Admin = Pick<User, "id" | "isAdmin" | "restricted">;

/** A role as the page and the API name it. */
export const roleNameOf = (role: FileRole): FileRoleName => ROLE_NAMES[role];
const ROLES_OF_NAMES: Record<Exclude<FileRoleName, "main">, FileRole> = { variant: "VARIANT", optional: "OPTIONAL", translation: "TRANSLATION" };

/** A version's extra file a download names: it must belong to a visible version of the post (else 404). */
export async function downloadableFile(postId: string, fileId: string): Promise<VersionFile & { version: { id: string; label: string } }> {
  const file = await db.versionFile.findFirst({
    where: { id: fileId, removedAt: null, version: { postId, hidden: false } },
    include: { version: { select: { id: true, label: true } } },
  });
  if (!file) throw new DomainError(404, VERSION_FILE_MESSAGES.fileNotFound);
  return file;
}

/** The extra files of these versions (not removed ones), in their order, by version id. */
export async function filesOfVersions(versionIds: readonly string[]): Promise<Map<string, VersionFile[]>> {
  const byVersion = new Map<string, VersionFile[]>();
  if (versionIds.length === 0) return byVersion;
  const rows = await db.versionFile.findMany({
    where: { versionId: { in: [...versionIds] }, removedAt: null },
    orderBy: [{ position: "asc" }, { createdAt: "asc" }],
  });
  for (const row of rows) byVersion.set(row.versionId, [...(byVersion.get(row.versionId) ?? []), row]);
  return byVersion;
}

type SameFileKey = Pick<VersionFile, "id" | "role" | "label">;

/**
 * The file of another version that is "the same file" as `file` of its version: the one with its
 * role and label, as a variant is matched by label when a user's choice carries over (a file is a
 * new row in each version). Two files of one version with the same role and label (add-ons
 * without a label) are matched in their order. `other` and `ofItsVersion`: the two versions'
 * files in their order (`filesOfVersions`). Null when the other version has no such file.
 */
export function sameFileIn<T extends SameFileKey>(other: readonly T[], file: SameFileKey, ofItsVersion: readonly SameFileKey[]): T | null {
  const alike = (candidate: SameFileKey) => candidate.role === file.role && candidate.label === file.label;
  const rank = ofItsVersion.filter(alike).findIndex((candidate) => candidate.id === file.id);
  return other.filter(alike)[Math.max(rank, 0)] ?? null;
}

/** An added file of a card's current version, in the card's words ("Variant: Alpha · unlocked by Tier 2"). */
export type CardFile = { role: FileRoleName; name: string; access: string };

/**
 * The card lines of the listed posts whose current version has added files (the listing's
 * `files`), by post id; posts with a main file only are left out. Each line's access is the
 * listing's explanation of that file (`explainFiles`: the entitlement rule for it), in the words
 * a card's requirements use. `posts`: posts of `listing`.
 */
export function cardFilesOf(
  listing: LibraryListing,
  posts: readonly LibraryPost[],
  tiers: readonly { tierId: string; title: string }[],
): Record<string, CardFile[]> {
  const result: Record<string, CardFile[]> = {};
  for (const post of posts) {
    const { entitlement, files } = accessOf(listing, post);
    if (!files) continue;
    const lines: CardFile[] = [];
    for (const { view, gate, explanation } of files) {
      if (view.role === "main") continue;
      const summary = { allowed: explanation.allowed, unlockTierIds: [...explanation.unlocks.tierIds], shopItem: explanation.unlocks.shopItem };
      lines.push({
        role: view.role,
        name: view.label || view.fileName,
        access: requirementAccessWords(summary, isFreeAt(postForFile(entitlement, gate), listing.now), tiers),
      });
    }
    if (lines.length > 0) result[post.postId] = lines;
  }
  return result;
}

/** The file-role fields of an admin's request, by the one schema the form and the API share. */
export function versionFileInputOf(input: unknown): VersionFileInput {
  const parsed = parseInput(versionFileSchema, input);
  if (!parsed.success) throw new DomainError(400, parsed.error.issues[0]?.message ?? VERSION_FILE_MESSAGES.fileFailed);
  return parsed.data;
}

/**
 * Adds a stored file to a version of the post with its role, label and gate, audited in its
 * transaction. Refused (the stored file deleted): not an admin, no such version of the post, or a
 * gate naming an unknown tier.
 */
export async function addVersionFile(
  actor: Admin,
  postId: string,
  versionId: string,
  stored: StoredVersionFile,
  input: VersionFileInput,
): Promise<VersionFile> {
  try {
    if (!isEffectiveAdmin(actor)) throw new DomainError(403, LIBRARY_MESSAGES.adminOnly);
    return await db.$transaction(async (tx) => {
      const version = await tx.postVersion.findFirst({ where: { id: versionId, postId }, select: { id: true, label: true } });
      if (!version) throw new DomainError(404, VERSION_MESSAGES.versionNotFound);
      await requireKnownTiers(tx, input.gateTierIds);
      const position = await tx.versionFile.count({ where: { versionId } });
      const file = await tx.versionFile.create({
        data: {
          versionId,
          role: ROLES_OF_NAMES[input.role],
          label: input.label,
          position,
          storageKey: stored.key,
          fileName: stored.fileName,
          size: BigInt(stored.size),
          sha256: stored.sha256,
          contentHash: stored.contentHash,
          ...(stored.zipEntries ? { zipEntries: stored.zipEntries } : {}),
          // Checked on upload when the post is marked as a Blender extension: the repository lists it.
          ...(stored.blenderManifest ? { blenderManifest: stored.blenderManifest } : {}),
          gateTierIds: input.gateTierIds,
          gateShopItem: input.gateShopItem,
        },
      });
      await recordAudit(
        {
          actorId: actor.id,
          action: "post.version.file",
          targetType: "post",
          targetId: postId,
          before: null,
          after: { versionId, fileId: file.id, role: input.role, label: input.label, key: stored.key, sha256: stored.sha256, gate: gateOf(file) },
        },
        tx,
      );
      return file;
    });
  } catch (error) {
    await (await storage()).delete(stored.key).catch((deleteError: unknown) => log().error(errorFields(deleteError), "Could not delete a refused upload"));
    throw error;
  }
}

/** Changes a file's role, label and gate (its bytes stay). */
export async function updateVersionFile(actor: Admin, postId: string, fileId: string, input: VersionFileInput): Promise<VersionFile> {
  if (!isEffectiveAdmin(actor)) throw new DomainError(403, LIBRARY_MESSAGES.adminOnly);
  return db.$transaction(async (tx) => {
    const before = await tx.versionFile.findFirst({ where: { id: fileId, removedAt: null, version: { postId } } });
    if (!before) throw new DomainError(404, VERSION_FILE_MESSAGES.fileNotFound);
    await requireKnownTiers(tx, input.gateTierIds);
    const file = await tx.versionFile.update({
      where: { id: fileId },
      data: { role: ROLES_OF_NAMES[input.role], label: input.label, gateTierIds: input.gateTierIds, gateShopItem: input.gateShopItem },
    });
    await recordAudit(
      {
        actorId: actor.id,
        action: "post.version.file.update",
        targetType: "post",
        targetId: postId,
        before: { fileId, role: ROLE_NAMES[before.role], label: before.label, gate: gateOf(before) },
        after: { fileId, role: input.role, label: input.label, gate: gateOf(file) },
      },
      tx,
    );
    return file;
  });
}

/**
 * Removes a file added to a version (never the main file: that is the version). The row stays,
 * marked removed, so the download records that name it stay true (decision 022): from the commit
 * on, no page, listing, manifest, verify or download offers it. Audited in the same transaction.
 * Its stored bytes are deleted after the commit, unless another row still uses the key; a storage
 * failure is logged, never the request's failure (the file is removed either way).
 */
export async function removeVersionFile(actor: Admin, postId: string, fileId: string): Promise<VersionFile> {
  if (!isEffectiveAdmin(actor)) throw new DomainError(403, LIBRARY_MESSAGES.adminOnly);
  const removed = await db.$transaction(async (tx) => {
    const before = await tx.versionFile.findFirst({ where: { id: fileId, removedAt: null, version: { postId } } });
    if (!before) throw new DomainError(404, VERSION_FILE_MESSAGES.fileNotFound);
    const file = await tx.versionFile.update({ where: { id: fileId }, data: { removedAt: new Date() } });
    await recordAudit(
      {
        actorId: actor.id,
        action: "post.version.file.remove",
        targetType: "post",
        targetId: postId,
        before: { versionId: before.versionId, fileId, role: ROLE_NAMES[before.role], label: before.label, key: before.storageKey, sha256: before.sha256 },
        after: null,
      },
      tx,
    );
    return file;
  });
  await deleteUnusedFileBytes(postId, removed.storageKey);
  return removed;
}

/**
 * Deletes a removed file's bytes when nothing else uses its key: keys outside the post's own
 * folder (`posts/<id>/`) are never deleted (as when a post is deleted). Errors are logged only.
 */
async function deleteUnusedFileBytes(postId: string, key: string): Promise<void> {
  try {
    if (!key.startsWith(`posts/${postId}/`)) return;
    const [versions, files, posts] = await Promise.all([
      db.postVersion.count({ where: { storageKey: key } }),
      db.versionFile.count({ where: { storageKey: key, removedAt: null } }),
      db.post.count({ where: { driveFileId: key } }),
    ]);
    if (versions + files + posts > 0) return;
    await (await storage()).delete(key);
  } catch (error) {
    log().error({ key, ...errorFields(error) }, "Could not delete a removed file's bytes");
  }
}

async function requireKnownTiers(tx: Prisma.TransactionClient, tierIds: readonly string[]): Promise<void> {
  if (tierIds.length === 0) return;
  const known = await tx.tier.count({ where: { id: { in: [...tierIds] } } });
  if (known !== new Set(tierIds).size) throw new DomainError(400, VERSION_FILE_MESSAGES.unknownTier);
}

/** A file as the API answers it after a change. */
export function fileJson(file: VersionFile) {
  const gate = gateOf(file);
  return {
    fileId: file.id,
    versionId: file.versionId,
    role: ROLE_NAMES[file.role],
    label: file.label,
    fileName: file.fileName,
    size: Number(file.size),
    sha256: file.sha256,
    gate: gate ? { tierIds: [...gate.tierIds], shopItem: gate.shopItem } : null,
  };
}

/** The variant of a post's current version the user chose last time, as "Download all updates" fetches it. */
export type ChosenVariant = { fileId: string; label: string };

/**
 * For each of these posts, the variant of its current version with the label of the variant the
 * user downloaded most recently (of any version), when that label is still among the current
 * version's variants and the entitlement rule lets them have it; posts without one are absent
 * (their main file is fetched). The choice is read from the download records, so it is what the
 * user last picked, on any device.
 */
export async function chosenVariants(
  userId: string,
  posts: readonly { id: string; entitlement: EntitlementPost }[],
  viewer: EntitlementViewer | null,
  now: Date,
): Promise<Map<string, ChosenVariant>> {
  const chosen = new Map<string, ChosenVariant>();
  if (posts.length === 0) return chosen;
  const rows = await queryRows<{ post_id: string; file_id: string; label: string; gate_tier_ids: string[]; gate_shop_item: string | null }>(
    `SELECT DISTINCT ON (d.post_id) d.post_id, cur.id AS file_id, cur.label, cur.gate_tier_ids, cur.gate_shop_item
       FROM downloads d
       JOIN version_files picked ON picked.id = d.file_id AND picked.role = 'variant'
       JOIN posts p ON p.id = d.post_id
       JOIN version_files cur ON cur.version_id = p.current_version_id AND cur.role = 'variant' AND cur.label = picked.label
                              AND cur.removed_at IS NULL
      WHERE d.user_id = $1 AND d.post_id = ANY($2::text[])
      ORDER BY d.post_id, d.created_at DESC`,
    [userId, posts.map((post) => post.id)],
  );
  const byId = new Map(posts.map((post) => [post.id, post.entitlement]));
  for (const row of rows) {
    const gate = gateOf({ gateTierIds: row.gate_tier_ids, gateShopItem: row.gate_shop_item });
    const post = byId.get(row.post_id);
    if (post && explainFileAccess(post, gate, viewer, now).allowed) chosen.set(row.post_id, { fileId: row.file_id, label: row.label });
  }
  return chosen;
}
