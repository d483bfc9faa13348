import type { LoaderFunctionArgs } from "@remix-run/node";
import { handleApi, requireIdParam } from "~/api.server";
import { authorizeLibraryFile, postDownload } from "~/models/download.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { serveDownload } from "~/utils/serve-file.server";

/**
 * GET /api/library/files/{postId}?u&version&expires&sig: a file address of the library manifest.
 * Needs no cookie or token (the signature names the account); checked like any download when
 * used, served like one (Range, ETag; a ZIP carries the account's leak-trace number) and recorded
 * for the account once complete.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi("Download failed.", async () => {
    const postId = requireIdParam(params.postId, LIBRARY_MESSAGES.postNotFound);
    const { post, user } = await authorizeLibraryFile(postId, new URL(request.url).searchParams);
    return serveDownload(request, postDownload(post, user.id), { traceNumber: user.number });
  });
}
