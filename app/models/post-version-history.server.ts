// Post version histories as cards show them (docs/decisions/011-post-versions.md): notes rendered
// as safe HTML, and what changed inside a ZIP since the version before, built once per library
// version and shared by every request until posts or versions change.
import { createCache } from "~/cache.server";
import { db, Prisma } from "~/db.server";
import type { PostVersion } from "~/generated/prisma/client";
import type { ZipEntry } from "~/integrations/zip.server";
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
 * `stamp` is the library version the caller's listing was read at (`keptLibraryStamp`); without
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
