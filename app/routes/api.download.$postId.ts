import type { LoaderFunctionArgs } from "@remix-run/node";
import { handleApi, requireIdParam } from "~/api.server";
import { authorizeDownload, DOWNLOAD_VIEWER, postDownload } from "~/models/download.server";
import { loadViewerContext } from "~/models/entitlement.server";
import { missingRequirementsForDownload } from "~/models/post-requirements.server";
import { getCurrentUser } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { serveDownload } from "~/utils/serve-file.server";
import { FRAMED_BY_SELF } from "~/request-policy.server";

// Opened in the library's hidden download frame.
export function requestPolicy() {
  return FRAMED_BY_SELF;
}

/**
 * GET /api/download/{postId}[?version={versionId}][&file={fileId}]: streams the current (or named
 * visible) version's main file, or the named variant, add-on or translation of it, to a viewer
 * the entitlement rule lets have that file (Range, ETag). A signed-in downloader's ZIP carries their
 * leak-trace number in its comment (free signed addresses never). `X-Missing-Requirements`
 * names the required posts the downloader lacks.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi("Download failed.", async () => {
    const postId = requireIdParam(params.postId, LIBRARY_MESSAGES.postNotFound);
    const user = await getCurrentUser(request);
    // The door to the file: checked on every request, whatever the library's action answered before.
    const search = new URL(request.url).searchParams;
    // The viewer once: the check and the requirements read the same facts and library stamp.
    const context = await loadViewerContext(user, DOWNLOAD_VIEWER);
    const post = await authorizeDownload(user, postId, search.get("version"), search.get("file"), context);
    const response = await serveDownload(request, postDownload(post, user?.id ?? null), { traceNumber: user?.number ?? null });
    // Requirements warn, never block (docs/api.md#download): the required posts this downloader
    // cannot download yet, by id ("hidden" for one they may not see).
    const missing = await missingRequirementsForDownload(user, context, postId);
    if (missing.length > 0) response.headers.set("X-Missing-Requirements", missing.join(", "));
    return response;
  });
}
