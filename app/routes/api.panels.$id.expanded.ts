import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, requireIdParam } from "~/api.server";
import { getPanel, PANEL_NOT_FOUND_MESSAGE, toExpandedPanel } from "~/models/panel.server";

/** GET /api/panels/{id}/expanded: the panel with its image address and edit details. */
export async function loader({ params }: LoaderFunctionArgs) {
  return handleApi("Failed to fetch panels or user data.", async () => {
    const panel = await getPanel(requireIdParam(params.id, PANEL_NOT_FOUND_MESSAGE));
    if (!panel) return apiError(404, PANEL_NOT_FOUND_MESSAGE);
    return json(toExpandedPanel(panel));
  });
}
