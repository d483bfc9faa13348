import type { LoaderFunctionArgs } from "@remix-run/node";
import { handleApi, requireIdParam } from "~/api.server";
import { libraryDelta } from "~/models/library-delta.server";
import { getCurrentUser } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { serveStoredFile } from "~/utils/serve-file.server";

/**
 * GET /api/library/posts/{postId}/delta?from={version label}[&file={fileId}] (a session or
 * `Authorization: Bearer`): a ZIP of the entries added or changed since that version plus
 * `.delta/removed.txt`, stamped with the account's leak-trace number, served like a download
 * (Range, ETag) and recorded as a download of the current version (its file, with `file`) once
 * wholly sent. Without `file`, of the main file; with it, of that added file of the current
 * version from the same-role, same-label file of `from`.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.deltaFailed, async () => {
    const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const user = await getCurrentUser(request);
    const search = new URL(request.url).searchParams;
    const delta = await libraryDelta(user, postId, search.get("from"), search.get("file") || null);
    return serveStoredFile(request, delta.store, delta.key, {
      contentType: "application/zip",
      cacheControl: "private, no-store",
      fileName: delta.fileName,
      onSent: delta.onSent,
    });
  });
}
