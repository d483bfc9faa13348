// PUT /api/admin/posts/{id}/compatibility {versionId, patchId?, mark}: marks a version of the post
// works, broken or untested on a game patch (the current one unless named), without an upload.
// Admins only (docs/api.md#game-patches).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { setVersionMark } from "~/models/game-patch.server";
import { requireApiAdmin } from "~/models/session.server";
import { PATCH_MESSAGES, patchMarkSchema } from "~/utils/game-patch-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(PATCH_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, patchMarkSchema);
    return json({ message: PATCH_MESSAGES.markSaved, mark: await setVersionMark(admin, postId, input) });
  });
}
