import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { createPanel, listPanels, toApiPanel } from "~/models/panel.server";
import { requireApiAdmin } from "~/models/session.server";
import { panelInputSchema } from "~/utils/panel-schemas";

/** GET /api/panels: every home panel, ascending index (public). */
export async function loader() {
  return handleApi("Failed to fetch panels or user data.", async () => {
    const panels = await listPanels();
    return json(panels.map(toApiPanel));
  });
}

/** POST /api/panels: create a panel from a JSON body (admins). */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to create panel.", async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, panelInputSchema);
    const panel = await createPanel(admin.id, input);
    return json({ message: "Panel created successfully.", panel: toApiPanel(panel) }, { status: 201 });
  });
}
