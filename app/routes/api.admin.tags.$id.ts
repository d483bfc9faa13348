// DELETE /api/admin/tags/{id or slug}: deletes a tag; its posts lose it (docs/api.md#tags).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { deleteTag } from "~/models/catalog.server";
import { requireApiAdmin } from "~/models/session.server";
import { CATALOG_MESSAGES } from "~/utils/catalog-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "DELETE") return methodNotAllowed();
  return handleApi(CATALOG_MESSAGES.tagFailed, async () => {
    const admin = await requireApiAdmin(request);
    const ref = requireIdParam(params.id, CATALOG_MESSAGES.tagNotFound);
    await deleteTag(admin.id, ref);
    return json({ message: CATALOG_MESSAGES.tagDeleted });
  });
}
