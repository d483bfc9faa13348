// GET /api/admin/patches: the game patches in the order they were named, the current one flagged.
// POST /api/admin/patches {name, current?}: names a patch; `current: true` declares it the current
// one at once (patch day). Admins only (docs/api.md#game-patches).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { addGamePatch, listGamePatches } from "~/models/game-patch.server";
import { requireApiAdmin } from "~/models/session.server";
import { PATCH_MESSAGES, patchCreateSchema } from "~/utils/game-patch-schemas";

export async function loader({ request }: LoaderFunctionArgs) {
  return handleApi(PATCH_MESSAGES.loadFailed, async () => {
    await requireApiAdmin(request);
    return json({ patches: await listGamePatches() }, { headers: { "Cache-Control": "private, no-store" } });
  });
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(PATCH_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, patchCreateSchema);
    return json({ message: PATCH_MESSAGES.added, patch: await addGamePatch(admin, input) }, { status: 201 });
  });
}
