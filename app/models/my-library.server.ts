// The account's own library records: "My downloads" (every recorded download with its leak-trace
// number, kept DOWNLOAD_RETENTION_DAYS) and "Updates for you" (owned posts whose downloaded
// version is behind the post's current one).
import { db } from "~/db.server";
import { env } from "~/env.server";
import { accessOf, isListedPostPublic, listLibraryPosts } from "~/models/library-listing.server";
import { chosenVariants } from "~/models/version-files.server";
import { visiblePostsWhere } from "~/models/post-visibility.server";

const DAY_MS = 24 * 60 * 60 * 1000;
export const MY_DOWNLOADS_PAGE_SIZE = 50;

export function downloadRetentionDays(): number {
  return env().DOWNLOAD_RETENTION_DAYS;
}

export type MyDownload = { id: string; postId: string; postTitle: string; version: string; date: string; leakTraceNumber: number };

/** One page of the user's download records of posts they may see now, newest first. */
export async function listMyDownloads(user: { id: string; number: number; isAdmin: boolean; restricted: boolean }, page: number, now = new Date()) {
  const where = { userId: user.id, post: visiblePostsWhere(user, now) };
  const [total, rows] = await Promise.all([
    db.download.count({ where }),
    db.download.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (page - 1) * MY_DOWNLOADS_PAGE_SIZE,
      take: MY_DOWNLOADS_PAGE_SIZE,
      select: { id: true, postId: true, version: true, createdAt: true, post: { select: { title: true } } },
    }),
  ]);
  const downloads: MyDownload[] = rows.map((row) => ({
    id: row.id,
    postId: row.postId,
    postTitle: row.post.title,
    version: row.version,
    date: row.createdAt.toISOString(),
    // Each record is the account's; its leak-trace number is what a leaked copy is traced by.
    leakTraceNumber: user.number,
  }));
  return { downloads, total, pages: Math.max(1, Math.ceil(total / MY_DOWNLOADS_PAGE_SIZE)) };
}

/**
 * Deletes download records older than the retention, a batch at a time (short locks). Needs no
 * guard against other servers: running it twice at once deletes nothing twice.
 */
export async function pruneOldDownloads(now = new Date(), days = downloadRetentionDays()): Promise<number> {
  const before = new Date(now.getTime() - days * DAY_MS);
  let removed = 0;
  for (;;) {
    // Flagged for the insights trigger (migration 0031): pruned days leave the rollups at the
    // daily rebuild, rather than forcing a full rebuild every hour.
    const count = await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT set_config('clib.retention_prune', 'on', true)`;
      return tx.$executeRaw`DELETE FROM downloads WHERE id IN (SELECT id FROM downloads WHERE created_at < ${before} LIMIT 5000)`;
    });
    removed += count;
    if (count < 5000) return removed;
  }
}

export type MyUpdate = {
  postId: string;
  title: string;
  fromVersion: string;
  toVersion: string;
  updatedAt: string | null;
  paid: boolean;
  fileSize: number | null;
  /** The variant chosen last time, fetched instead of the main file (docs/product.md#files-of-a-version); null: the main file. */
  variant: { fileId: string; label: string } | null;
};

type LibraryUser = Parameters<typeof listLibraryPosts>[0];

/**
 * Posts the user may download whose last downloaded version is not the current one, most
 * recently updated first. The library's own listing decides both (entitlement and download
 * status), so this view and the cards' "Your version" badges never disagree.
 */
export async function listMyUpdates(user: NonNullable<LibraryUser>): Promise<MyUpdate[]> {
  // The viewer once: the listing's facts, and the rule for the variants chosen last time.
  const listing = await listLibraryPosts(user);
  const updates = listing.posts.filter((post) => isListedPostPublic(post, listing.now) && post.unlocked && post.downloadStatus === "outdated");
  const when = (post: (typeof updates)[number]) => Date.parse(post.last_updated ?? post.order_date);
  updates.sort((a, b) => when(b) - when(a));
  const variants = await chosenVariants(
    user.id,
    updates.map((post) => ({ id: post.postId, entitlement: accessOf(listing, post).entitlement })),
    listing.viewer,
    listing.now,
  );
  return updates.map((post) => ({
    postId: post.postId,
    title: post.title,
    fromVersion: post.userVersion ?? "",
    toVersion: post.version,
    updatedAt: post.last_updated,
    paid: post.paid_content,
    fileSize: post.fileSize,
    variant: variants.get(post.postId) ?? null,
  }));
}
