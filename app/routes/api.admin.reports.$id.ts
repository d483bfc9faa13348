import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { BUG_REPORT_MESSAGES, setBugReportState } from "~/models/bug-report.server";
import { requireApiAdmin } from "~/models/session.server";
import { bugStateSchema } from "~/utils/bug-report-schemas";

/** PUT /api/admin/reports/{id} `{ state, fixedVersionId? }`: moves a report (admins only); the first "fixed" tells the reporter and the "me too"s once. */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(BUG_REPORT_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, BUG_REPORT_MESSAGES.reportNotFound);
    const input = await readJson(request, bugStateSchema);
    return json(await setBugReportState(admin, id, input), { headers: { "Cache-Control": "private, no-store" } });
  });
}
