// POST /api/admin/search-by-code {code, keyword}: a leak-trace number's downloads by title.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson } from "~/api.server";
import { searchDownloadsByCode, toCodeSearchPayload } from "~/models/admin-search.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES, codeSearchSchema } from "~/utils/admin-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(ADMIN_MESSAGES.searchFailed, async () => {
    await requireApiAdmin(request);
    const query = await readJson(request, codeSearchSchema);
    const result = await searchDownloadsByCode(query);
    if (!result) return apiError(404, ADMIN_MESSAGES.userNotFound);
    return json(toCodeSearchPayload(result));
  });
}

export async function loader() {
  return methodNotAllowed();
}
