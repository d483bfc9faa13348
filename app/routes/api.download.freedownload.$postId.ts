import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, requireIdParam } from "~/api.server";
import { authorizeFreeDownload, signedDownloadUrl } from "~/models/download.server";
import { getCurrentUser } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/** GET /api/download/freedownload/{postId}[?version=][&file=]: a short-lived signed address of a free post's file (a free file's). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.freeDownloadFailed, async () => {
    const postId = requireIdParam(params.postId, LIBRARY_MESSAGES.postNotFound);
    const user = await getCurrentUser(request);
    const search = new URL(request.url).searchParams;
    const versionId = search.get("version");
    const post = await authorizeFreeDownload(user, postId, versionId, search.get("file"));
    return json(
      { downloadUrl: signedDownloadUrl(post.id, user?.id ?? null, Date.now(), versionId ? post.versionId : null, post.fileId) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}
