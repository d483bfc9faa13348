import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { deletePost, updatePost } from "~/models/post-admin.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES, postUpdateSchema } from "~/utils/library-schemas";

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
