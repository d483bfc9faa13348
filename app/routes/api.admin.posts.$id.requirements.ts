// GET /api/admin/posts/{id}/requirements: the post's requirements as stored, in order.
// PUT /api/admin/posts/{id}/requirements {requirements: [...]}: replaces them (docs/api.md#requirements).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { getPostRequirements, setPostRequirements } from "~/models/post-requirements.server";
import { requireApiAdmin } from "~/models/session.server";
import { CATALOG_MESSAGES, requirementsSchema } from "~/utils/catalog-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(CATALOG_MESSAGES.requirementsFailed, async () => {
    await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    return json({ requirements: await getPostRequirements(id) });
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(CATALOG_MESSAGES.requirementsFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, requirementsSchema);
    return json({ requirements: await setPostRequirements(admin.id, id, input) });
  });
}
