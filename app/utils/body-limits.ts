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

/** What a route uploads; post files are as large as POST_FILE_MAX_BYTES allows. */
export type UploadKind = "image" | "post-file" | "csv";

/** The largest file of a kind. */
export function maxFileBytes(kind: UploadKind, postFileMaxBytes: number): number {
  if (kind === "post-file") return postFileMaxBytes;
  return kind === "csv" ? MAX_CSV_BYTES : MAX_IMAGE_BYTES;
}
