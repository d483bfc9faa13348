import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { createApiToken, listApiTokens } from "~/models/api-token.server";
import { requireSessionUser } from "~/models/session.server";
import { API_TOKEN_MESSAGES, apiTokenLabelSchema } from "~/utils/api-token-schemas";

const NO_STORE = { "Cache-Control": "private, no-store" };

/** GET /api/account/tokens: the signed-in account's live personal tokens, without their secrets. */
export function loader({ request }: LoaderFunctionArgs) {
  return handleApi(API_TOKEN_MESSAGES.listFailed, async () => {
    const user = await requireSessionUser(request, API_TOKEN_MESSAGES.sessionOnly);
    return json({ tokens: await listApiTokens(user) }, { headers: NO_STORE });
  });
}

/** POST /api/account/tokens `{ label }`: 201 `{ id, label, token, expires_at }`, the only answer that shows the token. */
export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(API_TOKEN_MESSAGES.createFailed, async () => {
    const user = await requireSessionUser(request, API_TOKEN_MESSAGES.sessionOnly);
    const input = await readJson(request, apiTokenLabelSchema);
    return json(await createApiToken(user, input), { status: 201, headers: NO_STORE });
  });
}
