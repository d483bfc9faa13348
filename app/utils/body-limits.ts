// The largest request bodies, in ONE place: server/security.ts refuses bodies above these from
// their declared length before Remix runs (uploads by the kind the route's policy names), and the
// routes cap the files they stream with the same numbers. Plain data, so the Express server
// imports it without Remix.

const KIB = 1024;
const MIB = 1024 * KIB;

/** JSON and form bodies (readJson in app/api.server.ts and every non-upload route). */
export const DEFAULT_BODY_LIMIT = 1 * MIB;
/** Room for the multipart framing around an uploaded file. */
export const MULTIPART_OVERHEAD = 64 * KIB;
/** Images: post fronts, home panels. */
export const MAX_IMAGE_BYTES = 10 * MIB;
/** Purchase CSV imports. */
export const MAX_CSV_BYTES = 20 * MIB;

/** What a route uploads; post files are as large as POST_FILE_MAX_BYTES allows; a part is one piece of a resumable upload. */
export type UploadKind = "image" | "post-file" | "csv" | "post-file-part";

/** The smallest part of a resumable upload (S3 refuses smaller parts but the last). */
export const MIN_UPLOAD_PART_BYTES = 8 * MIB;
/** The most parts one upload may have (S3's limit). */
export const MAX_UPLOAD_PARTS = 10_000;

/** The part size of a resumable upload of `size` bytes: 8 MiB, or whole MiB enough to stay within 10,000 parts. */
export function uploadPartSize(size: number): number {
  return Math.max(MIN_UPLOAD_PART_BYTES, Math.ceil(size / MAX_UPLOAD_PARTS / MIB) * MIB);
}

/** The largest file of a kind (a part: the part size of the largest post file). */
export function maxFileBytes(kind: UploadKind, postFileMaxBytes: number): number {
  if (kind === "post-file") return postFileMaxBytes;
  if (kind === "post-file-part") return uploadPartSize(postFileMaxBytes);
  return kind === "csv" ? MAX_CSV_BYTES : MAX_IMAGE_BYTES;
}
