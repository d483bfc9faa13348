// POST /api/admin/force-interval: runs the support-platform sync now and answers its summary.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { recordAudit } from "~/models/audit.server";
import { runIntervalSync } from "~/models/interval-sync.server";
import { requireApiAdmin } from "~/models/session.server";

const FAILURE = "Error forcing interval.";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(FAILURE, async () => {
    const admin = await requireApiAdmin(request);
    const summary = await runIntervalSync({ trigger: "admin" });
    await recordAudit({ actorId: admin.id, action: "interval.force", targetType: "job", targetId: summary.jobRunId, after: summary });
    if (summary.status === "skipped") return json({ error: FAILURE, details: summary.error, summary }, { status: 409 });
    if (summary.status === "failed") return json({ error: FAILURE, details: summary.error, summary }, { status: 502 });
    return json({ message: "Interval job completed.", summary });
  });
}

export function loader() {
  return methodNotAllowed();
}
