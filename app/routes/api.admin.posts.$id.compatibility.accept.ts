// POST /api/admin/posts/{id}/compatibility/accept {versionId, patchId?}: the players' answer on a
// game patch (the current one unless named) becomes the version's mark. Admins only
// (docs/api.md#game-patches).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { acceptConfirmations } from "~/models/game-patch.server";
import { requireApiAdmin } from "~/models/session.server";
import { PATCH_MESSAGES, patchAcceptSchema } from "~/utils/game-patch-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(PATCH_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, patchAcceptSchema);
    return json({ message: PATCH_MESSAGES.accepted, mark: await acceptConfirmations(admin, postId, input) });
  });
}
