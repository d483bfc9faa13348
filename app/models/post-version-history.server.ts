// Post version histories as cards show them (docs/decisions/011-post-versions.md): notes rendered
// as safe HTML, and what changed inside a ZIP since the version before, built once per library
// version and shared by every request until posts or versions change. A post's page adds the same
// for each added file (variant, add-on, translation) of each version (`withFileChangelogs`).
import { createCache } from "~/cache.server";
import { db, Prisma } from "~/db.server";
import type { PostVersion, VersionFile } from "~/generated/prisma/client";
import type { ZipEntry } from "~/integrations/zip.server";
import { roleNameOf, sameFileIn } from "~/models/version-files.server";
import { FILE_ROLES, type FileRoleName } from "~/utils/version-file-words";
import { renderVersionNotes } from "~/utils/version-notes.server";
import { zipChangelog, type Changelog } from "~/utils/zip-changelog";

/** A version as a card shows it: notes as safe HTML, and what changed inside a ZIP since the one before. */
export type VersionView = {
  id: string;
  label: string;
  notesHtml: string;
  createdAt: string;
  fileName: string;
  size: number;
  sha256: string | null;
  hidden: boolean;
  current: boolean;
  zip: boolean;
  /** Null for the first version, or when either side is no ZIP (or not read yet). */
  changelog: Changelog | null;
  /**
   * The version's added files (variants, add-ons, translations), each compared with the same file
   * of the version listed before it; only where a post's page asks for them (`withFileChangelogs`).
   */
  files?: FileChangeView[];
};

/** What changed in an added file of a version since the file with its role and label in the version listed before. */
export type FileChangeView = {
  fileId: string;
  role: FileRoleName;
  label: string;
  fileName: string;
  /** The version before had no file of this role and label (false for the oldest version). */
  newFile: boolean;
  zip: boolean;
  /** Null when there is no such file before, or either side is no ZIP. */
  changelog: Changelog | null;
};

function entriesOf(value: Prisma.JsonValue | null): ZipEntry[] | null {
  return Array.isArray(value) ? (value as unknown as ZipEntry[]) : null;
}

type Histories = Record<string, VersionView[]>;

/** Each post's history, newest first, from version rows in time order; a changelog compares with the row before. */
function historiesOf(rows: (PostVersion & { currentOf: { id: string } | null })[]): Histories {
  const histories: Histories = {};
  const previous = new Map<string, ZipEntry[] | null>();
  for (const row of rows) {
    const entries = entriesOf(row.zipEntries);
    const before = previous.get(row.postId);
    const changelog = entries && before ? zipChangelog(before, entries) : null;
    previous.set(row.postId, entries);
    (histories[row.postId] ??= []).unshift({
      id: row.id,
      label: row.label,
      notesHtml: renderVersionNotes(row.notes),
      createdAt: row.createdAt.toISOString(),
      fileName: row.fileName,
      size: Number(row.size),
      sha256: row.sha256,
      hidden: row.hidden,
      current: row.currentOf !== null,
      zip: entries !== null,
      changelog,
    });
  }
  return histories;
}

/**
 * Every post's history as admins and as users see it, made once per library version
 * (app/cache.server.ts; the `post_versions` trigger of migration 0033 bumps it like a post change
 * does): the library page would otherwise query, render the Markdown and diff the ZIPs of its 48
 * cards on every request.
 */
const historiesAtVersion = createCache<{ admin: Histories; visible: Histories }>(1);

async function readHistories() {
  const rows = await db.postVersion.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], include: { currentOf: { select: { id: true } } } });
  return { admin: historiesOf(rows), visible: historiesOf(rows.filter((row) => !row.hidden)) };
}

/** Rows read after the stamp are at least as new as it; a change in between only means one more rebuild on the next request. */
async function allHistories(stamp: string | null) {
  if (stamp === null) return readHistories();
  return historiesAtVersion.get("histories", stamp, async () => ({ value: await readHistories() }));
}

/**
 * The version history of each post, newest first: for admins every version, for users the
 * visible ones. Each changelog compares a version with the one listed right before it in time.
 * `stamp` is the library version the caller's listing was read at (its viewer context's); without
 * one, the histories are read afresh.
 */
export async function versionHistories(postIds: string[], { admin, stamp = null }: { admin: boolean; stamp?: string | null }): Promise<Histories> {
  if (postIds.length === 0) return {};
  const all = await allHistories(stamp);
  const histories = admin ? all.admin : all.visible;
  const chosen: Histories = {};
  for (const id of postIds) if (histories[id]) chosen[id] = histories[id];
  return chosen;
}

/**
 * The versions of one post as listed (newest first) with each one's added files: each file is
 * compared with the file of the same role and label (`sameFileIn`) in the version listed right
 * after it, the one before in time, as the main file's changelog compares with that version's main
 * file. `files`: the versions' added files (`filesOfVersions`). The listed views are shared, so
 * they are copied, never changed.
 */
export function withFileChangelogs(versions: readonly VersionView[], files: ReadonlyMap<string, readonly VersionFile[]>): VersionView[] {
  return versions.map((version, index) => {
    const own = files.get(version.id) ?? [];
    if (own.length === 0) return version;
    const previous = versions[index + 1];
    const before = previous ? (files.get(previous.id) ?? []) : null;
    const changes = own.map((file): FileChangeView => {
      const entries = entriesOf(file.zipEntries);
      const earlier = before ? sameFileIn(before, file, own) : null;
      const earlierEntries = earlier ? entriesOf(earlier.zipEntries) : null;
      return {
        fileId: file.id,
        role: roleNameOf(file.role),
        label: file.label,
        fileName: file.fileName,
        newFile: before !== null && earlier === null,
        zip: entries !== null,
        changelog: entries && earlierEntries ? zipChangelog(earlierEntries, entries) : null,
      };
    });
    return { ...version, files: changes.sort((a, b) => FILE_ROLES.indexOf(a.role) - FILE_ROLES.indexOf(b.role)) };
  });
}
