import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { getInspirationConfig, setInspirationTitle } from "~/models/inspiration.server";
import { requireApiAdmin } from "~/models/session.server";
import { inspirationTitleSchema } from "~/utils/inspiration-schemas";

/** GET /api/inspiration/title: { title } (public). */
export async function loader() {
  return handleApi("Failed to fetch inspiration data.", async () => {
    const config = await getInspirationConfig();
    return json({ title: config.title });
  });
}

/** POST /api/inspiration/title {title}: admins only. */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to update title.", async () => {
    const admin = await requireApiAdmin(request);
    const { title } = await readJson(request, inspirationTitleSchema);
    const config = await setInspirationTitle(admin.id, title);
    return json({ title: config.title });
  });
}
