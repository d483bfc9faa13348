// The account's Blender extensions repository (docs/api.md#blender-repository): Blender's remote
// repository listing, format v1, of the posts marked as Blender extensions among those the
// account may download. Which posts is never decided here: the list is the library manifest's
// (`downloadableLibrary`, the download check of every post), narrowed to the marked ones.
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { stampedDigest } from "~/integrations/zip-stamp.server";
import { signedLibraryFileUrl } from "~/models/download.server";
import { downloadableLibrary } from "~/models/library-manifest.server";
import type { BlenderManifest } from "~/utils/blender-manifest";
import { traceTag } from "~/utils/trace-stamp.server";
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

/**
 * The listing for the request's account (401 without credentials). Each entry's archive is the
 * version the manifest would serve, at its signed address; its size and hash are those of the
 * bytes that address serves, the copy stamped with the account's leak-trace number. A version
 * never checked as an extension (uploaded before its post was marked, and since kept by the
 * account) is left out.
 */
export async function blenderListing(request: Request): Promise<BlenderListing> {
  const { user, posts, expires } = await downloadableLibrary(request);
  const marked = posts.filter((post) => post.blenderExtension !== null && post.versionId !== null);
  const versions = new Map(
    (marked.length > 0
      ? await db.postVersion.findMany({
          where: { id: { in: marked.map((post) => post.versionId!) } },
          select: { id: true, storageKey: true, size: true, sha256: true, blenderManifest: true },
        })
      : []
    ).map((row) => [row.id, row]),
  );
  const store = await storage();
  const comment = traceComment(user.number, traceTag(user.number));
  const data: BlenderListingEntry[] = [];
  for (const post of marked) {
    const version = versions.get(post.versionId!);
    const manifest = version?.blenderManifest as BlenderManifest | null | undefined;
    if (!version || !manifest || !version.sha256) continue;
    // The download stamps a ZIP with the account's number; one that cannot be stamped is served as stored.
    const served = (await stampedDigest(store, version.storageKey, Number(version.size), comment, version.sha256)) ?? {
      size: Number(version.size),
      sha256: version.sha256,
    };
    data.push({
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
      archive_url: signedLibraryFileUrl(post.id, user.id, post.versionId, expires),
      archive_size: served.size,
      archive_hash: `sha256:${served.sha256}`,
    });
  }
  return { version: "v1", blocklist: [], data };
}
