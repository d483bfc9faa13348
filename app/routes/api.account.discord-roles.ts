// GET /api/account/discord-roles: the signed-in account's Discord roles and why, as the account
// page's Discord roles card shows them (docs/api.md#discord-roles).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed } from "~/api.server";
import { accountDiscordRoles } from "~/models/discord-roles.server";
import { getCurrentUser } from "~/models/session.server";
import { DISCORD_MESSAGES } from "~/utils/discord-schemas";

export function loader({ request }: LoaderFunctionArgs) {
  return handleApi(DISCORD_MESSAGES.fetchFailed, async () => {
    const user = await getCurrentUser(request);
    if (!user) return apiError(401, "Not authenticated");
    return json(await accountDiscordRoles(user), { headers: { "Cache-Control": "private, no-store" } });
  });
}

export function action() {
  return methodNotAllowed();
}
