import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { createInspirationPanel, listInspirationPanels, statusName, toApiConfig } from "~/models/inspiration.server";
import { getCurrentUser, requireApiAdmin } from "~/models/session.server";
import { inspirationPanelSchema } from "~/utils/inspiration-schemas";

/** GET /api/inspiration/panels: { panels, config }; likes is null while counts are hidden. */
export async function loader({ request }: LoaderFunctionArgs) {
  return handleApi("Failed to fetch inspiration data.", async () => {
    const user = await getCurrentUser(request);
    const now = new Date();
    const { config, panels } = await listInspirationPanels(user, now);
    return json({
      panels: panels.map(({ id, imageUrl, title, status, likes, userHasLiked, userHasPatreonLiked }) => ({
        id,
        imageUrl,
        title,
        status,
        likes,
        userHasLiked,
        userHasPatreonLiked,
      })),
      config: toApiConfig(config, now),
    });
  });
}

/** POST /api/inspiration/panels: a new panel {imageUrl, title?} (admins). */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to create panel.", async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, inspirationPanelSchema);
    const panel = await createInspirationPanel(admin.id, input);
    return json(
      {
        id: panel.id,
        imageUrl: panel.imageUrl,
        title: panel.title,
        status: statusName(panel.status),
        likes: 0,
        userHasLiked: false,
        userHasPatreonLiked: false,
      },
      { status: 201 },
    );
  });
}
