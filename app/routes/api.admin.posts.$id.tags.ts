// PUT /api/admin/posts/{id}/tags {tags: [slug]}: replaces the post's tags (docs/api.md#tags).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { setPostTags } from "~/models/catalog.server";
import { requireApiAdmin } from "~/models/session.server";
import { CATALOG_MESSAGES, postTagsSchema } from "~/utils/catalog-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(CATALOG_MESSAGES.tagsFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, postTagsSchema);
    return json({ tags: await setPostTags(admin.id, id, input) });
  });
}
