import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { loadLibraryPageViewer } from "~/models/access.server";
import { deletePost, updatePost } from "~/models/post-admin.server";
import { loadPostPage } from "~/models/post-page.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES, postUpdateSchema } from "~/utils/library-schemas";

/**
 * GET /api/library/posts/{id}: the post as its page shows it to the viewer (a session, a Bearer
 * token, or a guest): the listing's fields, the access explanation, the visible versions, the
 * current version's files (each with its role, own gate and whether the viewer may download it) and what
 * it requires, each with the viewer's access line (a required post they may not see unnamed). A
 * post the viewer may not see is 404, as an unknown id.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.loadPostsFailed, async () => {
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const page = await loadPostPage(await loadLibraryPageViewer(request), id);
    if (!page) throw apiError(404, LIBRARY_MESSAGES.postNotFound);
    const { post, access, versions, voted, kept, compatibility, requirements, files } = page;
    return json({ post, access, versions, voted, kept, compatibility, requirements, files }, { headers: { "Cache-Control": "private, no-store" } });
  });
}

/** PUT /api/library/posts/{id} (post fields) and DELETE /api/library/posts/{id}: admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method === "PUT") {
    return handleApi(LIBRARY_MESSAGES.updateFailed, async () => {
      const admin = await requireApiAdmin(request);
      const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
      const input = await readJson(request, postUpdateSchema);
      return json({ message: "Post updated.", post: await updatePost(admin, id, input) });
    });
  }
  if (request.method === "DELETE") {
    return handleApi(LIBRARY_MESSAGES.updateFailed, async () => {
      const admin = await requireApiAdmin(request);
      await deletePost(admin, requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound));
      return json({ message: "Post deleted." });
    });
  }
  return methodNotAllowed();
}
