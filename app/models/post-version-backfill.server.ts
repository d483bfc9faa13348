// The background step that hashes files migrated from before versions existed: each version whose
// SHA-256 is unknown is read once from storage through the upload's hashing stream, and a ZIP's
// central directory is listed (docs/decisions/011-post-versions.md).
import { pipeline } from "node:stream";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { listZipEntries, looksLikeZip, TooManyZipEntriesError, UnreadableZipError, type ZipEntry } from "~/integrations/zip.server";
import { hashingStream } from "~/utils/upload-hash.server";
import { MAX_ZIP_ENTRIES } from "~/utils/version-schemas";
import { log } from "~/logger.server";

/** Versions whose hashes are not known yet (migrated files) and that did not fail in this process. */
const failedBackfill = new Set<string>();

/**
 * The background step for migrated files: reads each version whose SHA-256 is unknown once from
 * storage, through the same hashing stream as uploads, and for ZIPs reads the central directory.
 * Idempotent (only NULL hashes are filled, by a conditional update); a missing or unreadable
 * file is logged and skipped for the life of this process, never retried in a loop.
 */
export async function backfillVersionHashes({ batch = 20 }: { batch?: number } = {}): Promise<{ filled: number; skipped: number }> {
  const store = await storage();
  const pending = await db.postVersion.findMany({
    where: { sha256: null, id: { notIn: [...failedBackfill] } },
    orderBy: { createdAt: "asc" },
    take: batch,
    select: { id: true, storageKey: true, fileName: true },
  });
  let filled = 0;
  let skipped = 0;
  for (const version of pending) {
    try {
      if (!(await store.stat(version.storageKey))) throw new Error(`the file ${version.storageKey} is missing from storage`);
      const hashing = hashingStream();
      let head = Buffer.alloc(0);
      const source = await store.read(version.storageKey);
      await new Promise<void>((resolve, reject) => {
        hashing.stream.on("data", (chunk: Buffer) => {
          if (head.length < 4) head = Buffer.concat([head, chunk.subarray(0, 4 - head.length)]);
        });
        hashing.stream.once("end", resolve);
        pipeline(source, hashing.stream, (error) => (error ? reject(error) : undefined));
      });
      const digest = hashing.digest();
      let zipEntries: ZipEntry[] | null = null;
      if (looksLikeZip(version.fileName, head)) {
        try {
          zipEntries = await listZipEntries(store, version.storageKey, { maxEntries: MAX_ZIP_ENTRIES });
        } catch (error) {
          // A stored file that is no readable ZIP, or lists more entries than an upload may, still
          // gets its hashes; it shows size and hash only.
          if (!(error instanceof UnreadableZipError || error instanceof TooManyZipEntriesError)) throw error;
          log().warn({ versionId: version.id }, `versions job: no entry list for ${version.storageKey} (${error.message})`);
        }
      }
      const { count } = await db.postVersion.updateMany({
        where: { id: version.id, sha256: null },
        data: {
          sha256: digest.sha256,
          contentHash: digest.contentHash,
          size: BigInt(digest.size),
          ...(zipEntries ? { zipEntries: zipEntries } : {}),
        },
      });
      filled += count;
    } catch (error) {
      failedBackfill.add(version.id);
      skipped += 1;
      log().warn(
        { versionId: version.id },
        `versions job: skipped version ${version.id} (${(error as Error).message}); it is not retried until the server restarts`,
      );
    }
  }
  return { filled, skipped };
}

/** Fills every pending version (the job runs this; tests too). */
export async function backfillAllVersionHashes(): Promise<{ filled: number; skipped: number }> {
  const total = { filled: 0, skipped: 0 };
  for (;;) {
    const step = await backfillVersionHashes();
    total.filled += step.filled;
    total.skipped += step.skipped;
    if (step.filled + step.skipped === 0) return total;
  }
}

/** For tests: forget the versions this process skipped. */
export function resetBackfillSkips(): void {
  failedBackfill.clear();
}
