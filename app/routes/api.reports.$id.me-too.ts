import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { addMeToo, BUG_REPORT_MESSAGES, removeMeToo } from "~/models/bug-report.server";
import { requireApiUser } from "~/models/session.server";

/**
 * POST /api/reports/{id}/me-too: "me too" on an open report (once; again changes nothing);
 * DELETE takes it back. 200 `{ meToos }`. Only an account that downloaded the post (docs/api.md#bug-reports).
 */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST" && request.method !== "DELETE") return methodNotAllowed();
  return handleApi(BUG_REPORT_MESSAGES.failed, async () => {
    const user = await requireApiUser(request);
    const id = requireIdParam(params.id, BUG_REPORT_MESSAGES.reportNotFound);
    const result = request.method === "POST" ? await addMeToo(user, id) : await removeMeToo(user, id);
    return json(result, { headers: { "Cache-Control": "private, no-store" } });
  });
}
