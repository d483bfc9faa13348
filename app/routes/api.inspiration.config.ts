import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { getInspirationConfig, toApiConfig, updateInspirationConfig } from "~/models/inspiration.server";
import { requireApiAdmin } from "~/models/session.server";
import { inspirationConfigSchema } from "~/utils/inspiration-schemas";

/** GET /api/inspiration/config: the config (public; votingOpen is the effective state). */
export async function loader() {
  return handleApi("Failed to fetch inspiration data.", async () => json(toApiConfig(await getInspirationConfig())));
}

/** POST /api/inspiration/config {mode, votingOpen, votingEndTime, title}: any subset, admins only. */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to update configuration.", async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, inspirationConfigSchema);
    const config = await updateInspirationConfig(admin.id, input);
    return json({ ...toApiConfig(config), votingOpenFlag: config.votingOpen });
  });
}
