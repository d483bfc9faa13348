// The files of a version (docs/product.md#files-of-a-version, docs/decisions/022-version-files.md):
// its main file is the version row's own; variants, optional add-ons and translations are rows of
// version_files, each with an optional gate of its own. Who may download which file is the
// entitlement rule's (`explainFileAccess` in app/utils/entitlement.ts); this module loads files,
// lists them as the post page and the API show them, and adds them for admins.
import { db, Prisma, queryRows } from "~/db.server";
import type { User, VersionFile } from "~/generated/prisma/client";
import type { FileRole } from "~/generated/prisma/enums";
import { storage } from "~/integrations/storage.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import type { StoredVersionFile } from "~/models/post-version.server";
import { explainFileAccess, hasOwnGate, isEffectiveAdmin, type EntitlementPost, type EntitlementViewer, type FileGate } from "~/utils/entitlement";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { versionFileSchema, type VersionFileInput } from "~/utils/version-file-schemas";
import { VERSION_FILE_MESSAGES, type FileRoleName } from "~/utils/version-file-words";
import { VERSION_MESSAGES } from "~/utils/version-schemas";

type Admin = Pick<User, "id" | "isAdmin" | "restricted">;

const ROLE_NAMES: Record<FileRole, FileRoleName> = { VARIANT: "variant", OPTIONAL: "optional", TRANSLATION: "translation" };
/** A role as the page and the API name it. */
export const roleNameOf = (role: FileRole): FileRoleName => ROLE_NAMES[role];
const ROLES_OF_NAMES: Record<Exclude<FileRoleName, "main">, FileRole> = { variant: "VARIANT", optional: "OPTIONAL", translation: "TRANSLATION" };
/** Roles in the order the page lists them. */
const ROLE_ORDER: FileRoleName[] = ["main", "variant", "optional", "translation"];

/** A file's own gate, or null when it has the post's. */
export function gateOf(file: Pick<VersionFile, "gateTierIds" | "gateShopItem"> | null): FileGate {
  if (!file) return null;
  const gate = { tierIds: file.gateTierIds, shopItem: file.gateShopItem };
  return hasOwnGate(gate) ? gate : null;
}

/** A version's extra file a download names: it must belong to a visible version of the post (else 404). */
export async function downloadableFile(postId: string, fileId: string): Promise<VersionFile & { version: { id: string; label: string } }> {
  const file = await db.versionFile.findFirst({
    where: { id: fileId, version: { postId, hidden: false } },
    include: { version: { select: { id: true, label: true } } },
  });
  if (!file) throw new DomainError(404, VERSION_FILE_MESSAGES.fileNotFound);
  return file;
}

/** The extra files of these versions, in their order, by version id. */
export async function filesOfVersions(versionIds: readonly string[]): Promise<Map<string, VersionFile[]>> {
  const byVersion = new Map<string, VersionFile[]>();
  if (versionIds.length === 0) return byVersion;
  const rows = await db.versionFile.findMany({ where: { versionId: { in: [...versionIds] } }, orderBy: [{ position: "asc" }, { createdAt: "asc" }] });
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

/** A file of a version as the post page, the card and the API show it (docs/api.md#post-files). */
export type FileView = {
  /** Null for the main file (downloads name no file then). */
  fileId: string | null;
  role: FileRoleName;
  label: string;
  fileName: string;
  size: number;
  sha256: string | null;
  /** The file's own gate; null: the post's. */
  gate: { tierIds: string[]; shopItem: string | null } | null;
  /** May this viewer download it now (the entitlement rule for this file)? */
  unlocked: boolean;
};

type MainFile = { fileName: string; size: number | bigint; sha256: string | null };

/**
 * A version's files, main first, then by role and position, each with whether `viewer` may
 * download it now: `explainFileAccess`, the rule every download asks.
 */
export function fileViews(post: EntitlementPost, main: MainFile, files: readonly VersionFile[], viewer: EntitlementViewer | null, now: Date): FileView[] {
  const views: FileView[] = [
    {
      fileId: null,
      role: "main",
      label: "",
      fileName: main.fileName,
      size: Number(main.size),
      sha256: main.sha256,
      gate: null,
      unlocked: explainFileAccess(post, null, viewer, now).allowed,
    },
  ];
  for (const file of files) {
    const gate = gateOf(file);
    views.push({
      fileId: file.id,
      role: ROLE_NAMES[file.role],
      label: file.label,
      fileName: file.fileName,
      size: Number(file.size),
      sha256: file.sha256,
      gate: gate ? { tierIds: [...gate.tierIds], shopItem: gate.shopItem } : null,
      unlocked: explainFileAccess(post, gate, viewer, now).allowed,
    });
  }
  return views.sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role));
}

/** The file-role fields of an admin's request, by the one schema the form and the API share. */
export function versionFileInputOf(input: unknown): VersionFileInput {
  const parsed = versionFileSchema.safeParse(input);
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
    await (await storage()).delete(stored.key).catch((deleteError: unknown) => console.error("Could not delete a refused upload", deleteError));
    throw error;
  }
}

/** Changes a file's role, label and gate (its bytes stay). */
export async function updateVersionFile(actor: Admin, postId: string, fileId: string, input: VersionFileInput): Promise<VersionFile> {
  if (!isEffectiveAdmin(actor)) throw new DomainError(403, LIBRARY_MESSAGES.adminOnly);
  return db.$transaction(async (tx) => {
    const before = await tx.versionFile.findFirst({ where: { id: fileId, version: { postId } } });
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
