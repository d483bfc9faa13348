// Keep what you downloaded (docs/product.md#keep-what-you-downloaded): when the creator turns it on
// (KEEP_DOWNLOADED_VERSIONS), a member whose membership lapses keeps the exact versions they
// downloaded while their membership gave them the post. Newer versions stay locked. The download
// records are the proof, so a kept version lasts as long as its record (DOWNLOAD_RETENTION_DAYS).
import { db } from "~/db.server";
import { env } from "~/env.server";
import type { DownloadAccess } from "~/generated/prisma/enums";

/** Downloads made through a membership: what a lapse takes away, and what this setting keeps. */
const MEMBERSHIP_SOURCES: DownloadAccess[] = ["TIER", "EARLY_SUPPORTER"];

/** A version the user keeps: the first time they downloaded it through a membership. */
export type KeptVersion = { versionId: string; label: string; downloadedAt: Date; source: DownloadAccess };

export function keepsDownloadedVersions(): boolean {
  return env().KEEP_DOWNLOADED_VERSIONS;
}

/** The visible versions of these posts the user downloaded through a membership, oldest first, by post. */
export async function keptVersions(userId: string, postIds: readonly string[]): Promise<Map<string, KeptVersion[]>> {
  const kept = new Map<string, KeptVersion[]>();
  if (!keepsDownloadedVersions() || postIds.length === 0) return kept;
  const rows = await db.download.findMany({
    // The version's main file: its extra files are kept one by one (`keptFileFor`).
    where: { userId, postId: { in: [...postIds] }, fileId: null, accessSource: { in: MEMBERSHIP_SOURCES }, postVersion: { hidden: false } },
    select: { postId: true, versionId: true, version: true, createdAt: true, accessSource: true },
    orderBy: { createdAt: "asc" },
  });
  for (const row of rows) {
    const list = kept.get(row.postId) ?? [];
    if (row.versionId && !list.some((version) => version.versionId === row.versionId)) {
      list.push({ versionId: row.versionId, label: row.version, downloadedAt: row.createdAt, source: row.accessSource });
    }
    kept.set(row.postId, list);
  }
  return kept;
}

/** The kept version of this post a download asks for (`versionId`, or else the current one), if the user keeps it. */
export async function keptVersionFor(userId: string, postId: string, versionId: string | null): Promise<KeptVersion | undefined> {
  if (!versionId) return undefined;
  return (await keptVersions(userId, [postId])).get(postId)?.find((version) => version.versionId === versionId);
}

/**
 * A version's extra file the user keeps: they downloaded that file itself through a membership
 * (a variant kept is not another variant), from a version still visible.
 */
export async function keptFileFor(userId: string, postId: string, fileId: string): Promise<KeptVersion | undefined> {
  if (!keepsDownloadedVersions()) return undefined;
  const row = await db.download.findFirst({
    where: { userId, postId, fileId, accessSource: { in: MEMBERSHIP_SOURCES }, postVersion: { hidden: false } },
    select: { versionId: true, version: true, createdAt: true, accessSource: true },
    orderBy: { createdAt: "asc" },
  });
  if (!row?.versionId) return undefined;
  return { versionId: row.versionId, label: row.version, downloadedAt: row.createdAt, source: row.accessSource };
}
