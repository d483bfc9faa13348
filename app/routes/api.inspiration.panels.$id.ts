import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { deleteInspirationPanel, INSPIRATION_PANEL_NOT_FOUND_MESSAGE, statusName, updateInspirationPanel } from "~/models/inspiration.server";
import { requireApiAdmin } from "~/models/session.server";
import { inspirationPanelSchema } from "~/utils/inspiration-schemas";

/** PUT /api/inspiration/panels/{id} (panel fields) and DELETE: admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method === "PUT") {
    return handleApi("Failed to update panel.", async () => {
      const admin = await requireApiAdmin(request);
      const id = requireIdParam(params.id, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
      const input = await readJson(request, inspirationPanelSchema);
      const panel = await updateInspirationPanel(admin.id, id, input);
      return json({ id: panel.id, imageUrl: panel.imageUrl, title: panel.title, status: statusName(panel.status) });
    });
  }
  if (request.method === "DELETE") {
    return handleApi("Failed to delete panel.", async () => {
      const admin = await requireApiAdmin(request);
      const id = requireIdParam(params.id, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
      await deleteInspirationPanel(admin.id, id);
      return json({ message: "Panel deleted." });
    });
  }
  return methodNotAllowed();
}
