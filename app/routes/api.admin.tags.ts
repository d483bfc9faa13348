// GET /api/admin/tags: every tag (id, name, slug, posts). POST /api/admin/tags {name, slug}: a new
// tag (201), admins only (docs/api.md#tags).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { createTag, listTags } from "~/models/catalog.server";
import { requireApiAdmin } from "~/models/session.server";
import { CATALOG_MESSAGES, tagCreateSchema } from "~/utils/catalog-schemas";

export async function loader({ request }: LoaderFunctionArgs) {
  return handleApi(CATALOG_MESSAGES.tagFailed, async () => {
    await requireApiAdmin(request);
    return json({ tags: await listTags() });
  });
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(CATALOG_MESSAGES.tagFailed, async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, tagCreateSchema);
    return json({ tag: await createTag(admin.id, input) }, { status: 201 });
  });
}
