// Delta updates (docs/api.md#delta-updates): the current version of a post's ZIP (its main file,
// or an added file: a variant, add-on or translation) as a small ZIP of what changed since a
// version the account already has. Who may have it is never decided
// here: `authorizeDownload`, the check of every download, clears the post (and names the version
// served) first. The delta is stamped with the account's leak-trace number like a paid download
// and counted as a download of the version it brings, once wholly sent.
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { isStorageOutage, STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE, storage, type Storage } from "~/integrations/storage.server";
import { deltaLayout, DeltaNotPossibleError } from "~/integrations/zip-delta.server";
import { NeedsZip64Error, layoutView } from "~/integrations/zip-writer.server";
import { UnreadableZipError, type ZipEntry } from "~/integrations/zip.server";
import { authorizeDownload, postDownload } from "~/models/download.server";
import { DomainError } from "~/models/errors";
import { NOT_AUTHENTICATED_MESSAGE } from "~/models/session.server";
import { filesOfVersions, sameFileIn } from "~/models/version-files.server";
import { downloadFileName } from "~/utils/download-name";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { VERSION_FILE_MESSAGES } from "~/utils/version-file-words";
import type { SentBytes } from "~/utils/serve-file.server";
import { traceTag } from "~/utils/trace-stamp.server";
import { traceComment } from "~/utils/zip-eocd";

/** A delta ready to serve: `key` of `store` reads as it; `onSent` records the download. */
export type LibraryDelta = { store: Storage; key: string; fileName: string; onSent?: (sent: SentBytes) => Promise<void> };

type Downloader = Pick<User, "id" | "number" | "isAdmin" | "restricted" | "currentTierId" | "tosAccepted">;

/** The files a version's ZIP holds, as recorded at upload (null: not a ZIP, or not read yet). */
function entriesOf(value: unknown): ZipEntry[] | null {
  return Array.isArray(value) ? (value as ZipEntry[]) : null;
}

type Entries = { fromEntries: ZipEntry[] | null; currentEntries: ZipEntry[] | null };

/** The main files' entries of the `from` version and of the version served. */
async function mainEntries(from: { zipEntries: unknown }, versionId: string | null): Promise<Entries> {
  const current = versionId ? await db.postVersion.findUnique({ where: { id: versionId }, select: { zipEntries: true } }) : null;
  return { fromEntries: entriesOf(from.zipEntries), currentEntries: entriesOf(current?.zipEntries) };
}

/** The entries of an added file of the version served and of the same file (role and label) of the `from` version: 404 when it has none. */
async function fileEntries(fromId: string, versionId: string, fileId: string): Promise<Entries> {
  const files = await filesOfVersions([fromId, versionId]);
  const ofCurrent = files.get(versionId) ?? [];
  const file = ofCurrent.find((candidate) => candidate.id === fileId);
  const earlier = file ? sameFileIn(files.get(fromId) ?? [], file, ofCurrent) : null;
  if (!file || !earlier) throw new DomainError(404, LIBRARY_MESSAGES.deltaFromNoFile);
  return { fromEntries: entriesOf(earlier.zipEntries), currentEntries: entriesOf(file.zipEntries) };
}

/**
 * The delta of `postId` from the version labelled `fromLabel` to the version the account may
 * download now; with `fileId`, of that added file of the current version (a variant, add-on or
 * translation) from the file with its role and label in the `from` version. Refusals: those of the
 * download check (for a file, the file's own rule, as its download), 400 without `from`, 404 for
 * a version the post does not have (or hides), a file not of the current version, or a `from`
 * version without that file; 409 when it is the one served, 422 when no delta can be written
 * (either file not a ZIP, or one this writer cannot copy), 503 when storage is down.
 */
export async function libraryDelta(user: Downloader | null, postId: string, fromLabel: string | null, fileId: string | null = null): Promise<LibraryDelta> {
  if (!user) throw new DomainError(401, NOT_AUTHENTICATED_MESSAGE);
  if (!fromLabel) throw new DomainError(400, LIBRARY_MESSAGES.deltaFromMissing);
  // The one download check; its answer names the version (and file) served.
  const post = await authorizeDownload(user, postId, null, fileId);
  if (post.fileId && post.versionId !== post.currentVersionId) throw new DomainError(404, VERSION_FILE_MESSAGES.fileNotFound);
  if (fromLabel === post.version) throw new DomainError(409, LIBRARY_MESSAGES.deltaFromCurrent);
  const from = await db.postVersion.findFirst({
    where: { postId, label: fromLabel, hidden: false },
    orderBy: { createdAt: "desc" },
    select: { id: true, zipEntries: true },
  });
  if (!from) throw new DomainError(404, LIBRARY_MESSAGES.deltaFromUnknown);
  if (from.id === post.versionId) throw new DomainError(409, LIBRARY_MESSAGES.deltaFromCurrent);
  const { fromEntries, currentEntries } = post.fileId ? await fileEntries(from.id, post.versionId!, post.fileId) : await mainEntries(from, post.versionId);
  if (!fromEntries || !currentEntries) throw new DomainError(422, LIBRARY_MESSAGES.deltaNotPossible);

  const tag = traceTag(user.number);
  const store = await storage();
  try {
    const info = await store.stat(post.driveFileId);
    if (!info) throw new DomainError(404, LIBRARY_MESSAGES.fileMissing);
    const { layout } = await deltaLayout(store, post.driveFileId, fromEntries, traceComment(user.number, tag));
    const key = `delta/${post.driveFileId}`;
    const view = layoutView(store, post.driveFileId, key, layout, {
      lastModified: info.lastModified,
      // One copy per (current file, older version, downloader): a resumed download of another is started over.
      etag: `"d-${post.versionId ?? "file"}${post.fileId ? `.${post.fileId}` : ""}-${from.id}-${info.etag.replace(/"/g, "")}-t${user.number}-${tag}"`,
    });
    const name = downloadFileName(post.title, post.version, post.fileName ?? post.driveFileId);
    return {
      store: view,
      key,
      fileName: name.replace(/(\.[a-z0-9]+)?$/, `-update-from-${fromLabel.toLowerCase().replace(/[^a-z0-9._-]+/g, "-")}$1`),
      onSent: postDownload(post, user.id).onSent,
    };
  } catch (error) {
    if (error instanceof DeltaNotPossibleError || error instanceof NeedsZip64Error || error instanceof UnreadableZipError) {
      throw new DomainError(422, `${LIBRARY_MESSAGES.deltaNotPossible} (${error.message})`);
    }
    if (isStorageOutage(error)) throw new DomainError(503, STORAGE_UNAVAILABLE_MESSAGE, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
    throw error;
  }
}
