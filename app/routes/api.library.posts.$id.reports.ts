import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { BUG_REPORT_MESSAGES, fileBugReport, listKnownIssues } from "~/models/bug-report.server";
import { getCurrentUser, requireApiUser } from "~/models/session.server";
import { z } from "zod";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

const NO_STORE = { "Cache-Control": "private, no-store" };

/** GET /api/library/posts/{id}/reports: the post's known issues (titles and states, never who reported), for whoever may see the post (docs/api.md#bug-reports). */
export function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(BUG_REPORT_MESSAGES.loadFailed, async () => {
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const viewer = await getCurrentUser(request);
    return json({ reports: await listKnownIssues(viewer, id) }, { headers: NO_STORE });
  });
}

/** POST /api/library/posts/{id}/reports `{ title, body, gamePatch? }`: 201 `{ report }`; only an account that downloaded the post. */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(BUG_REPORT_MESSAGES.failed, async () => {
    const user = await requireApiUser(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    // Validated by the model (bugReportSchema) after the downloader check: a non-downloader is a 403 whatever it sent.
    const input = await readJson(request, z.unknown());
    return json({ report: await fileBugReport(user, id, input) }, { status: 201, headers: NO_STORE });
  });
}
