// POST /api/admin/force-interval: runs the support-platform sync now (see forceIntervalSync).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { forceIntervalSync } from "~/models/interval-sync.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(ADMIN_MESSAGES.forceIntervalFailed, async () => {
    const admin = await requireApiAdmin(request);
    const summary = await forceIntervalSync(admin.id);
    return json({ message: ADMIN_MESSAGES.intervalCompleted, summary });
  });
}

export function loader() {
  return methodNotAllowed();
}
