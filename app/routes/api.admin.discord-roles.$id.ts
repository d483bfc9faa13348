// DELETE /api/admin/discord-roles/{id}: removes a role mapping; members who had the role through
// it lose it within a minute. Admins only (docs/api.md#discord-roles).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { deleteRoleMapping } from "~/models/discord-roles.server";
import { requireApiAdmin } from "~/models/session.server";
import { DISCORD_MESSAGES } from "~/utils/discord-schemas";

export function loader() {
  return methodNotAllowed();
}

export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "DELETE") return methodNotAllowed();
  return handleApi(DISCORD_MESSAGES.removeFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, DISCORD_MESSAGES.notFound);
    await deleteRoleMapping(admin, id);
    return json({ message: DISCORD_MESSAGES.removed });
  });
}
