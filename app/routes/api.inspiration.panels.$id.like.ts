import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { INSPIRATION_PANEL_NOT_FOUND_MESSAGE, setLike } from "~/models/inspiration.server";
import { getCurrentUser } from "~/models/session.server";
import { likeRequestSchema } from "~/utils/inspiration-schemas";

/** POST /api/inspiration/panels/{id}/like: like and unlike. Body {like: boolean} sets the state; none toggles. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to toggle like.", async () => {
    const id = requireIdParam(params.id, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
    const user = await getCurrentUser(request);
    const { like } = await readJson(request, likeRequestSchema);
    const panel = await setLike(user, id, "LIKE", like);
    return json(panel);
  });
}
