import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { getPanel, PANEL_NOT_FOUND_MESSAGE, setPanelImage, toApiPanel } from "~/models/panel.server";
import { requireApiAdmin } from "~/models/session.server";
import { readUploadedFile, SELECT_IMAGE_MESSAGE } from "~/utils/upload.server";
import { adminUploads } from "~/request-policy.server";

export function requestPolicy() {
  return adminUploads("image");
}

/** POST /api/panelsupload/{id}/image: multipart field `image` (png, jpg, jpeg), admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to update panel.", async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, PANEL_NOT_FOUND_MESSAGE);
    // Refuse an unknown panel before reading a large body.
    if (!(await getPanel(id))) return apiError(404, PANEL_NOT_FOUND_MESSAGE);
    const file = await readUploadedFile(request, "image", { missingMessage: SELECT_IMAGE_MESSAGE });
    const panel = await setPanelImage(admin.id, id, file.bytes);
    return json({ message: "Panel image uploaded successfully.", panel: toApiPanel(panel) });
  });
}
