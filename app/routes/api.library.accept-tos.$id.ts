import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { acceptTerms } from "~/models/download.server";
import { requireApiUser } from "~/models/session.server";
import { acceptTosSchema, LIBRARY_MESSAGES } from "~/utils/library-schemas";

/** POST /api/library/accept-tos/{id} {tosAccepted: true}: {id} is the user's own id. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.tosFailed, async () => {
    const user = await requireApiUser(request);
    const id = requireIdParam(params.id, "User not found.");
    await readJson(request, acceptTosSchema);
    await acceptTerms(user, id);
    return json({ tosAccepted: true });
  });
}
