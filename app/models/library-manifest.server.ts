// The library manifest (docs/api.md#library-manifest): every post the account may download now,
// each with its file's name, size, hashes and a signed address a tool can fetch without cookies.
// Which posts are listed is never decided here: each is asked of `authorizeLoadedDownload`, the
// check every download makes, so the manifest lists exactly what the downloads would serve.
//
// Its ETag is made from what the answer depends on, read in the one round trip that also finds
// the account (the session or token lookup with the viewer context and the library's stamp), plus
// what the process already holds (the library snapshot's next change, the addresses' expiry step):
// an unchanged manifest is answered 304 with a single query.
import { createHash } from "node:crypto";
import { db } from "~/db.server";
import type { User, VersionFile } from "~/generated/prisma/client";
import {
  authorizeLoadedDownload,
  libraryFileExpiry,
  signedLibraryFileUrl,
  signingKeyTag,
  type DownloadablePost,
  type KeptLookup,
} from "~/models/download.server";
import { toViewerContext, type PostWithAccess, type ViewerContext, type ViewerRow } from "~/models/entitlement.server";
import { DomainError, isDomainError } from "~/models/errors";
import { keepsDownloadedVersions, keptVersions, type KeptVersion } from "~/models/kept-versions.server";
import { libraryPostsAt } from "~/models/library-listing.server";
import { getCurrentUserWith, NOT_AUTHENTICATED_MESSAGE } from "~/models/session.server";
import { downloadFileName } from "~/utils/download-name";
import { toEntitlementPost } from "~/models/entitlement.server";
import { filesOfVersions, gateOf } from "~/models/version-files.server";
import { explainFileAccess, type EntitlementViewer } from "~/utils/entitlement";
import type { FileRoleName } from "~/utils/version-file-words";

/**
 * One file of a manifest entry: the version's main file first, then its variants, add-ons and
 * translations (docs/product.md#files-of-a-version), each with whether the account may download
 * it (the entitlement rule for that file); a locked file has no address.
 */
export type ManifestFile = {
  name: string;
  role: FileRoleName;
  /** Null for the main file; else what `?file=` names. */
  file_id: string | null;
  /** "Maxis Match", "Deutsch"; empty for the main file. */
  label: string;
  size: number | null;
  sha256: string | null;
  content_hash: string | null;
  unlocked: boolean;
  url: string | null;
};

export type ManifestEntry = {
  postId: string;
  title: string;
  version: string;
  files: ManifestFile[];
  /** Other posts this one needs; empty until posts can name them. */
  requires: string[];
  /** What this post works with; empty until posts can name it. */
  compatibility: string[];
};

export type LibraryManifest = { generated_at: string; posts: ManifestEntry[] };

/** The manifest's answer: 304 when the client's copy is current, else the manifest; both with its ETag. */
export type ManifestAnswer = { etag: string; manifest: LibraryManifest | null };

type ManifestUser = Pick<User, "id" | "number" | "isAdmin" | "restricted" | "currentTierId" | "tosAccepted">;

/**
 * The request's account (a session or a personal token) with its library manifest, or only the
 * ETag when `ifNoneMatch` names it. 401 without credentials.
 */
export async function libraryManifest(request: Request, ifNoneMatch: string | null): Promise<ManifestAnswer> {
  const withDownloads = keepsDownloadedVersions();
  // One round trip: the account, what the entitlement rule needs about it, and the library's stamp.
  const found = await getCurrentUserWith<ViewerRow>(request, { withDownloads, withLibraryStamp: true });
  if (!found) throw new DomainError(401, NOT_AUTHENTICATED_MESSAGE);
  const user = found.user;
  const context = toViewerContext(user, found.extra, withDownloads);
  const now = new Date();
  // The snapshot the downloads read: kept in memory until the library changes or its next release instant.
  const library = await libraryPostsAt(context.libraryStamp, now);
  const expires = libraryFileExpiry(now.getTime());
  const etag = manifestEtag(user, context, library.until, expires);
  if (ifNoneMatch && etagMatches(ifNoneMatch, etag)) return { etag, manifest: null };
  return { etag, manifest: await buildManifest(user, context, library.posts, now, expires) };
}

/**
 * The request's account (a session or a personal token) and every post the download check
 * clears for it now, as the manifest lists them (the Blender repository reads the same list).
 * 401 without credentials.
 */
export async function downloadableLibrary(
  request: Request,
): Promise<{ user: ManifestUser; posts: DownloadablePost[]; viewer: EntitlementViewer | null; now: Date; expires: number }> {
  const withDownloads = keepsDownloadedVersions();
  const found = await getCurrentUserWith<ViewerRow>(request, { withDownloads, withLibraryStamp: true });
  if (!found) throw new DomainError(401, NOT_AUTHENTICATED_MESSAGE);
  const context = toViewerContext(found.user, found.extra, withDownloads);
  const now = new Date();
  const library = await libraryPostsAt(context.libraryStamp, now);
  const posts = await downloadablePosts(found.user, context, library.posts, now);
  return { user: found.user, posts, viewer: context.viewer, now, expires: libraryFileExpiry(now.getTime()) };
}

/**
 * May the account download this added file (variant, add-on, translation) of a listed post's
 * version now? The entitlement rule for the file (its own gate, or the post's); a kept version
 * keeps its main file only. The manifest and the Blender repository both ask this.
 */
export function extraFileUnlocked(post: DownloadablePost, file: VersionFile, viewer: EntitlementViewer | null, now: Date): boolean {
  return !post.keptSource && explainFileAccess(toEntitlementPost(post), gateOf(file), viewer, now).allowed;
}

/**
 * Everything the manifest says depends on: the viewer (its fingerprint: tier, grants, purchases,
 * pledges, votes and, when downloads are kept, the versions downloaded), the terms, the library
 * (its stamp, and the next instant a publication or release step opens), the addresses' expiry
 * step and signing key.
 */
function manifestEtag(user: ManifestUser, context: ViewerContext, until: number | undefined, expires: number): string {
  const parts = [context.fingerprint, user.tosAccepted, user.number, context.libraryStamp, until ?? "", keepsDownloadedVersions(), expires, signingKeyTag()];
  return `"m-${createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 32)}"`;
}

/** `If-None-Match` (a list, `*`, or weak tags) against the manifest's strong ETag. */
function etagMatches(header: string, etag: string): boolean {
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}

/**
 * Each post the download check clears for this account now, in library order: its current
 * version or, when the check refuses that, the newest version the account keeps from its
 * membership (docs/product.md#keep-what-you-downloaded) that the check clears.
 */
async function downloadablePosts(user: ManifestUser, context: ViewerContext, posts: PostWithAccess[], now: Date): Promise<DownloadablePost[]> {
  let kept: Promise<Map<string, KeptVersion[]>> | undefined;
  // The account's kept versions of every post, read at most once (and only if the rule refuses one).
  const keptOf = (postId: string) =>
    (kept ??= keptVersions(
      user.id,
      posts.map((post) => post.id),
    )).then((map) => map.get(postId) ?? []);
  const lookup: KeptLookup = async (post, versionId) => (await keptOf(post.id)).find((version) => version.versionId === versionId);
  const viewer = context.viewer;
  const cleared: DownloadablePost[] = [];
  for (const post of posts) {
    const current = await attempt(() => authorizeLoadedDownload(user, post, viewer, now, null, lookup));
    if (current) {
      cleared.push(current);
      continue;
    }
    if (!withKeptVersions(user)) continue;
    const versions = await keptOf(post.id);
    for (const version of [...versions].reverse()) {
      const older = await attempt(() => authorizeLoadedDownload(user, post, viewer, now, version.versionId, lookup));
      if (older) {
        cleared.push(older);
        break;
      }
    }
  }
  return cleared;
}

function withKeptVersions(user: ManifestUser): boolean {
  return keepsDownloadedVersions() && !user.restricted;
}

/** The check's answer, or null when it refuses (any other failure is thrown). */
async function attempt(check: () => Promise<DownloadablePost>): Promise<DownloadablePost | null> {
  try {
    return await check();
  } catch (error) {
    if (isDomainError(error)) return null;
    throw error;
  }
}

async function buildManifest(user: ManifestUser, context: ViewerContext, posts: PostWithAccess[], now: Date, expires: number): Promise<LibraryManifest> {
  const cleared = await downloadablePosts(user, context, posts, now);
  const versionIds = cleared.map((post) => post.versionId).filter((id): id is string => id !== null);
  const hashes = new Map(
    (versionIds.length > 0
      ? await db.postVersion.findMany({ where: { id: { in: versionIds } }, select: { id: true, sha256: true, contentHash: true } })
      : []
    ).map((row) => [row.id, row]),
  );
  const extraFiles = await filesOfVersions(versionIds);
  const roles = { VARIANT: "variant", OPTIONAL: "optional", TRANSLATION: "translation" } as const;
  return {
    generated_at: now.toISOString(),
    posts: cleared.map((post) => {
      const hash = post.versionId ? hashes.get(post.versionId) : undefined;
      // The version's other files, each decided by the rule for that file (a kept version keeps its main file only).
      const extras: ManifestFile[] = (post.versionId ? (extraFiles.get(post.versionId) ?? []) : []).map((file) => {
        const unlocked = extraFileUnlocked(post, file, context.viewer, now);
        return {
          name: downloadFileName(post.title, post.version, file.fileName),
          role: roles[file.role],
          file_id: file.id,
          label: file.label,
          size: Number(file.size),
          sha256: file.sha256,
          content_hash: file.contentHash,
          unlocked,
          url: unlocked ? signedLibraryFileUrl(post.id, user.id, post.versionId, expires, file.id) : null,
        };
      });
      return {
        postId: post.id,
        title: post.title,
        version: post.version,
        files: [
          {
            name: downloadFileName(post.title, post.version, post.fileName ?? post.driveFileId.split("/").pop() ?? ""),
            role: "main" as const,
            file_id: null,
            label: "",
            size: post.fileSize === null ? null : Number(post.fileSize),
            sha256: hash?.sha256 ?? null,
            content_hash: hash?.contentHash ?? null,
            unlocked: true,
            url: signedLibraryFileUrl(post.id, user.id, post.versionId, expires),
          },
          ...extras,
        ],
        requires: [],
        compatibility: [],
      };
    }),
  };
}
