// The account's Blender extensions repository (docs/api.md#blender-repository): Blender's remote
// repository listing, format v1, of the posts marked as Blender extensions among those the
// account may download, with their added files that are extensions too. Which posts and files is
// never decided here: the list is the library manifest's (`downloadableLibrary`, the download
// check of every post, and `extraFileUnlocked`, the rule for each added file), narrowed to the
// marked posts and the files checked as extensions.
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { stampedDigest } from "~/integrations/zip-stamp.server";
import { signedLibraryFileUrl } from "~/models/download.server";
import type { VersionFile } from "~/generated/prisma/client";
import { toEntitlementPost } from "~/models/entitlement.server";
import { downloadableLibrary, extraFileUnlocked } from "~/models/library-manifest.server";
import { chosenVariants, filesOfVersions, roleNameOf } from "~/models/version-files.server";
import type { BlenderManifest } from "~/utils/blender-manifest";
import { traceTag } from "~/utils/trace-stamp.server";
import { FILE_ROLES } from "~/utils/version-file-words";
import { traceComment } from "~/utils/zip-eocd";

/** One extension as Blender's listing names its fields. Optional fields are left out when the manifest has none. */
export type BlenderListingEntry = {
  schema_version: string;
  id: string;
  name: string;
  tagline: string;
  version: string;
  type: "add-on" | "theme";
  maintainer: string;
  license: string[];
  blender_version_min: string;
  blender_version_max?: string;
  website?: string;
  tags?: string[];
  platforms?: string[];
  permissions?: Record<string, string>;
  archive_url: string;
  archive_size: number;
  archive_hash: string;
};

export type BlenderListing = { version: "v1"; blocklist: string[]; data: BlenderListingEntry[] };

/** A file of a listed version that was checked as an extension: the main file (`fileId` null) or an added one. */
type ExtensionFile = { fileId: string | null; manifest: BlenderManifest; key: string; size: number; sha256: string };

/**
 * The listing for the request's account (401 without credentials). Each entry's archive is the
 * version the manifest would serve, at its signed address; its size and hash are those of the
 * bytes that address serves, the copy stamped with the account's leak-trace number. A version
 * never checked as an extension (uploaded before its post was marked, and since kept by the
 * account) is left out.
 *
 * Added files (variants, add-ons, translations) of a listed version that were checked as
 * extensions on upload are listed too, each only when the account may download it (the rule for
 * that file, as the manifest asks it) and at its own address (`&file=`). An extension's id is its
 * manifest's (Blender checks the archive against it), so two files of one post with the same id
 * are listed once: the variant the account chose last time ("Download all updates"' choice), else
 * the main file, else the first in role order; a file with an id of its own is listed beside them.
 */
export async function blenderListing(request: Request): Promise<BlenderListing> {
  const { user, posts, viewer, now, expires } = await downloadableLibrary(request);
  const marked = posts.filter((post) => post.blenderExtension !== null && post.versionId !== null);
  const versionIds = marked.map((post) => post.versionId!);
  const [versionRows, addedFiles] = await Promise.all([
    versionIds.length > 0
      ? db.postVersion.findMany({ where: { id: { in: versionIds } }, select: { id: true, storageKey: true, size: true, sha256: true, blenderManifest: true } })
      : [],
    filesOfVersions(versionIds),
  ]);
  const versions = new Map(versionRows.map((row) => [row.id, row]));
  // Each post's added extensions this account may download, in role order.
  const extras = new Map<string, VersionFile[]>();
  for (const post of marked) {
    const files = (addedFiles.get(post.versionId!) ?? [])
      .filter((file) => file.blenderManifest !== null && extraFileUnlocked(post, file, viewer, now))
      .sort((a, b) => FILE_ROLES.indexOf(roleNameOf(a.role)) - FILE_ROLES.indexOf(roleNameOf(b.role)));
    if (files.length > 0) extras.set(post.id, files);
  }
  const withVariants = marked.filter((post) => extras.get(post.id)?.some((file) => file.role === "VARIANT"));
  const chosen =
    withVariants.length > 0
      ? await chosenVariants(
          user.id,
          withVariants.map((post) => ({ id: post.id, entitlement: toEntitlementPost(post) })),
          viewer,
          now,
        )
      : new Map<string, { fileId: string }>();

  const store = await storage();
  const comment = traceComment(user.number, traceTag(user.number));
  const data: BlenderListingEntry[] = [];
  for (const post of marked) {
    const version = versions.get(post.versionId!);
    const candidates: ExtensionFile[] = [];
    const mainManifest = version?.blenderManifest as BlenderManifest | null | undefined;
    if (version && mainManifest && version.sha256) {
      candidates.push({ fileId: null, manifest: mainManifest, key: version.storageKey, size: Number(version.size), sha256: version.sha256 });
    }
    for (const file of extras.get(post.id) ?? []) {
      candidates.push({
        fileId: file.id,
        manifest: file.blenderManifest as BlenderManifest,
        key: file.storageKey,
        size: Number(file.size),
        sha256: file.sha256,
      });
    }
    // The variant chosen last time first, so it holds its id over the main file's.
    const chosenId = chosen.get(post.id)?.fileId;
    const ordered = [
      ...candidates.filter((file) => file.fileId !== null && file.fileId === chosenId),
      ...candidates.filter((file) => file.fileId === null || file.fileId !== chosenId),
    ];
    const idsOfPost = new Set<string>();
    for (const file of ordered) {
      if (idsOfPost.has(file.manifest.id)) continue;
      idsOfPost.add(file.manifest.id);
      // The download stamps a ZIP with the account's number; one that cannot be stamped is served as stored.
      const served = (await stampedDigest(store, file.key, file.size, comment, file.sha256)) ?? { size: file.size, sha256: file.sha256 };
      data.push(entryOf(file.manifest, signedLibraryFileUrl(post.id, user.id, post.versionId, expires, file.fileId), served));
    }
  }
  return { version: "v1", blocklist: [], data };
}

/** One listing entry: the manifest's fields (optional ones only when it has them) and the archive served. */
function entryOf(manifest: BlenderManifest, archiveUrl: string, served: { size: number; sha256: string }): BlenderListingEntry {
  return {
    schema_version: manifest.schema_version,
    id: manifest.id,
    name: manifest.name,
    tagline: manifest.tagline,
    version: manifest.version,
    type: manifest.type,
    maintainer: manifest.maintainer,
    license: manifest.license,
    blender_version_min: manifest.blender_version_min,
    ...(manifest.blender_version_max ? { blender_version_max: manifest.blender_version_max } : {}),
    ...(manifest.website ? { website: manifest.website } : {}),
    ...(manifest.tags ? { tags: manifest.tags } : {}),
    ...(manifest.platforms ? { platforms: manifest.platforms } : {}),
    ...(manifest.permissions ? { permissions: manifest.permissions } : {}),
    archive_url: archiveUrl,
    archive_size: served.size,
    archive_hash: `sha256:${served.sha256}`,
  };
}
