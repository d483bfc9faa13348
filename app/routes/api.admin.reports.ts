import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi } from "~/api.server";
import { BUG_REPORT_MESSAGES, listBugReports } from "~/models/bug-report.server";
import { requireApiAdmin } from "~/models/session.server";

/** GET /api/admin/reports?state=OPEN|NEW|CONFIRMED|FIXED|WONT_FIX|ALL&post={postId}: the triage list, with reporters (admins only). */
export function loader({ request }: LoaderFunctionArgs) {
  return handleApi(BUG_REPORT_MESSAGES.loadFailed, async () => {
    const admin = await requireApiAdmin(request);
    const search = new URL(request.url).searchParams;
    return json(await listBugReports(admin, { state: search.get("state") ?? undefined, post: search.get("post") ?? undefined }), {
      headers: { "Cache-Control": "private, no-store" },
    });
  });
}
