// The largest request body each route takes, in ONE place: server/security.ts refuses bodies
// above these from their declared length before Remix runs, and the routes cap the files they
// stream with the same numbers. Plain data, so the Express server imports it without Remix.

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

/** The upload a request's address names, or null for routes that take no files. */
export function uploadKindFor(path: string, query: URLSearchParams = new URLSearchParams()): UploadKind | null {
  if (/^\/api\/upload\/file\/[^/]+\/?$/.test(path)) return "post-file";
  // The library page's uploads name their intent in the address (the body is streamed).
  if (path === "/library" && query.get("intent") === "upload-file") return "post-file";
  if (path === "/library" && query.get("intent") === "upload-image") return "image";
  // A leaked ZIP dropped on the code search may be as large as a post file (only its end is kept).
  if (path === "/admin" && query.get("intent") === "trace-zip") return "post-file";
  if (path === "/admin" || path === "/api/admin/import-purchases") return "csv";
  if (/^\/api\/upload\/front\/[^/]+\/?$/.test(path) || /^\/api\/panelsupload\/[^/]+\/image\/?$/.test(path) || path === "/") return "image";
  return null;
}

/** The largest body a request takes: its file plus the multipart framing, everything else 1 MiB. */
export function bodyLimitFor(path: string, postFileMaxBytes: number, query?: URLSearchParams): number {
  const kind = uploadKindFor(path, query);
  return kind ? maxFileBytes(kind, postFileMaxBytes) + MULTIPART_OVERHEAD : DEFAULT_BODY_LIMIT;
}
