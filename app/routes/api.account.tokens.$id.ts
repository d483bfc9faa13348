import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { revokeApiToken } from "~/models/api-token.server";
import { requireSessionUser } from "~/models/session.server";
import { API_TOKEN_MESSAGES } from "~/utils/api-token-schemas";

/** DELETE /api/account/tokens/{id}: revokes one of the signed-in account's own tokens (another's id: 404). */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "DELETE") return methodNotAllowed();
  return handleApi(API_TOKEN_MESSAGES.revokeFailed, async () => {
    const user = await requireSessionUser(request, API_TOKEN_MESSAGES.sessionOnly);
    const id = requireIdParam(params.id, API_TOKEN_MESSAGES.notFound);
    await revokeApiToken(user, id);
    return json({ message: API_TOKEN_MESSAGES.revoked });
  });
}
