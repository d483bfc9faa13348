// POST /api/admin/import-purchases: multipart `file`, the shop's transactions export (.csv).
// Answers the report: how many rows were imported, were duplicates, or were rejected and why.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { importPurchasesCsv } from "~/models/purchase.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";
import { MAX_CSV_BYTES } from "~/utils/body-limits";
import { readUploadedFile } from "~/utils/upload.server";
import { adminUploads } from "~/request-policy.server";

export function requestPolicy() {
  return adminUploads("csv");
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(ADMIN_MESSAGES.importFailed, async () => {
    const admin = await requireApiAdmin(request);
    const file = await readUploadedFile(request, "file", { maxBytes: MAX_CSV_BYTES, missingMessage: ADMIN_MESSAGES.selectFile });
    return json(await importPurchasesCsv(admin.id, file.bytes, file.fileName));
  });
}

export function loader() {
  return methodNotAllowed();
}
