// GET /api/admin/mail: the mail outbox (admins only): counts by state, what is queued, retrying
// or being sent, and the latest given up, each with its last error (docs/api.md).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { outboxOverview } from "~/models/mail-outbox.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";

export async function loader({ request }: LoaderFunctionArgs) {
  return handleApi(ADMIN_MESSAGES.fetchOutboxFailed, async () => {
    await requireApiAdmin(request);
    return json(await outboxOverview(), { headers: { "Cache-Control": "private, no-store" } });
  });
}

export async function action() {
  return methodNotAllowed();
}
