// "Verify a file": what the browser compares a picked file against. Each visible
// version of a post with its content hash (the SHA-256 without a ZIP's comment, so a stamped
// paid download matches its stored file: docs/glossary.md) and plain SHA-256. The browser
// hashes the file itself; nothing is uploaded. A version's variants, add-ons and translations are
// checked too, each named with its version ("V2.1 · Alpha").
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { DomainError } from "~/models/errors";
import { isPostVisible } from "~/models/post-visibility.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import type { KnownVersion } from "~/utils/verify-file";

export type VerifiableVersion = KnownVersion;

type Viewer = Pick<User, "isAdmin" | "restricted"> | null;

/**
 * The versions a picked file of `postId` can be checked against, newest first: versions that are
 * not hidden and whose content hash is known. Anyone who sees the post in the library may ask
 * (a disabled or scheduled post answers 404 to all but admins, as the library hides it).
 */
export async function listVerifiableVersions(viewer: Viewer, postId: string): Promise<VerifiableVersion[]> {
  const post = await db.post.findUnique({ where: { id: postId }, select: { enabled: true, publishAt: true, currentVersionId: true } });
  if (!post || !isPostVisible(post, viewer)) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  const versions = await db.postVersion.findMany({
    where: { postId, hidden: false, contentHash: { not: null } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, label: true, contentHash: true, sha256: true },
  });
  const files = await db.versionFile.findMany({
    where: { removedAt: null, version: { postId, hidden: false } },
    orderBy: [{ version: { createdAt: "desc" } }, { position: "asc" }],
    select: { id: true, label: true, role: true, fileName: true, contentHash: true, sha256: true, version: { select: { id: true, label: true } } },
  });
  return [
    ...versions.map((version) => ({
      id: version.id,
      label: version.label,
      contentHash: version.contentHash!,
      sha256: version.sha256,
      current: version.id === post.currentVersionId,
    })),
    ...files.map((file) => ({
      id: file.id,
      label: `${file.version.label} · ${file.label || file.fileName}`,
      contentHash: file.contentHash,
      sha256: file.sha256,
      current: file.version.id === post.currentVersionId,
    })),
  ];
}
