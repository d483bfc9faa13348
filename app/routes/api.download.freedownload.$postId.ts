import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, requireIdParam } from "~/api.server";
import { authorizeFreeDownload, signedDownloadUrl } from "~/models/download.server";
import { getCurrentUser } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/** GET /api/download/freedownload/{postId}[?version=]: a short-lived signed address of a free post's file. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.freeDownloadFailed, async () => {
    const postId = requireIdParam(params.postId, LIBRARY_MESSAGES.postNotFound);
    const user = await getCurrentUser(request);
    const versionId = new URL(request.url).searchParams.get("version");
    const post = await authorizeFreeDownload(user, postId, versionId);
    return json(
      { downloadUrl: signedDownloadUrl(post.id, user?.id ?? null, Date.now(), versionId ? post.versionId : null) },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}
