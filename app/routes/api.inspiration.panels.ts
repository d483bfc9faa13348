import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { createInspirationPanel, statusName, toApiConfig } from "~/models/inspiration.server";
import { listInspirationPanels } from "~/models/inspiration-page.server";
import { getCurrentUser, requireApiAdmin } from "~/models/session.server";
import { inspirationPanelSchema } from "~/utils/inspiration-schemas";

/**
 * GET /api/inspiration/panels: { panels, config }; likes is null while counts are hidden. An idea
 * shipped as a post the visitor may not see is not listed (docs/security-model.md#who-sees-a-post).
 */
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
