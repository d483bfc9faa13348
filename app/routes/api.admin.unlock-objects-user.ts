// POST /api/admin/unlock-objects-user {userId}: recomputes one user's early-supporter unlocks.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson } from "~/api.server";
import { requireApiAdmin } from "~/models/session.server";
import { recomputeUnlocksForUser } from "~/models/unlocks.server";
import { unlockObjectsUserSchema } from "~/utils/shop-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Error unlocking objects", async () => {
    const admin = await requireApiAdmin(request);
    const { userId } = await readJson(request, unlockObjectsUserSchema);
    const result = await recomputeUnlocksForUser(admin.id, userId);
    if (!result) return apiError(404, "User not found.");
    return json({ message: "Unlocked objects updated.", ...result });
  });
}

export function loader() {
  return methodNotAllowed();
}
