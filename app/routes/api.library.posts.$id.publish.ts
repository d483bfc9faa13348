import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { publishPost } from "~/models/release.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { publishSchema, RELEASE_MESSAGES } from "~/utils/release-schemas";

/** PUT /api/library/posts/{id}/publish {publish_at} or {publish_now: true}: schedules or publishes the post, admins only (docs/api.md#releases). */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(RELEASE_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, publishSchema);
    return json({ post: await publishPost(admin, id, input) });
  });
}
