import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { deletePanel, getPanel, PANEL_NOT_FOUND_MESSAGE, toApiPanel, updatePanel } from "~/models/panel.server";
import { requireApiAdmin } from "~/models/session.server";
import { panelInputSchema } from "~/utils/panel-schemas";

/** GET /api/panels/{id}: one panel (public). */
export async function loader({ params }: LoaderFunctionArgs) {
  return handleApi("Failed to fetch panels or user data.", async () => {
    const panel = await getPanel(requireIdParam(params.id, PANEL_NOT_FOUND_MESSAGE));
    if (!panel) return apiError(404, PANEL_NOT_FOUND_MESSAGE);
    return json(toApiPanel(panel));
  });
}

/** PUT /api/panels/{id} (JSON body) and DELETE /api/panels/{id}: admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method === "PUT") {
    return handleApi("Failed to update panel.", async () => {
      const admin = await requireApiAdmin(request);
      const id = requireIdParam(params.id, PANEL_NOT_FOUND_MESSAGE);
      const input = await readJson(request, panelInputSchema);
      const panel = await updatePanel(admin.id, id, input);
      return json({ message: "Panel updated successfully.", panel: toApiPanel(panel) });
    });
  }
  if (request.method === "DELETE") {
    return handleApi("Failed to delete panel.", async () => {
      const admin = await requireApiAdmin(request);
      const id = requireIdParam(params.id, PANEL_NOT_FOUND_MESSAGE);
      await deletePanel(admin.id, id);
      return json({ message: "Panel deleted successfully." });
    });
  }
  return methodNotAllowed();
}
