import type { LoaderFunctionArgs } from "@remix-run/node";
import { apiError, handleApi, requireIdParam } from "~/api.server";
import { getDownloadablePost, postDownload, verifySignedDownload } from "~/models/download.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { serveDownload } from "~/utils/serve-file.server";
import { FRAMED_BY_SELF } from "~/request-policy.server";

// Opened in the library's hidden download frame.
export function requestPolicy() {
  return FRAMED_BY_SELF;
}

/** GET /download/{postId}?expires&sig[&u][&version][&file]: the signed address handed out for free downloads. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi("Download failed.", async () => {
    const postId = requireIdParam(params.postId, LIBRARY_MESSAGES.postNotFound);
    const search = new URL(request.url).searchParams;
    const userId = verifySignedDownload(postId, search);
    if (userId === null) return apiError(403, "This download link has expired. Please start the download again.");
    const post = await getDownloadablePost(postId, search.get("version"), search.get("file"));
    // A guest's download is counted once per signed address (its signature), without a user.
    return serveDownload(request, postDownload(post, userId || null, userId ? null : search.get("sig")));
  });
}
