// POST /api/admin/patches/{id}/current: patch day, the named patch becomes the current one. Admins
// only (docs/api.md#game-patches).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { declareCurrentPatch } from "~/models/game-patch.server";
import { requireApiAdmin } from "~/models/session.server";
import { PATCH_MESSAGES } from "~/utils/game-patch-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(PATCH_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const patchId = requireIdParam(params.id, PATCH_MESSAGES.patchNotFound);
    return json({ message: PATCH_MESSAGES.declared, patch: await declareCurrentPatch(admin, patchId) });
  });
}
