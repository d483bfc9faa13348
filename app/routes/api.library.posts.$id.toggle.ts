import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { setPostEnabled } from "~/models/post-admin.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES, toggleSchema } from "~/utils/library-schemas";

/** PUT /api/library/posts/{id}/toggle {enabled}: admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.toggleFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const { enabled } = await readJson(request, toggleSchema);
    return json({ post: await setPostEnabled(admin, id, enabled) });
  });
}
