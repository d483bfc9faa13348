// POST /api/admin/import-purchases: multipart `file`, the shop's transactions export (.csv).
// Answers the report: how many rows were imported, were duplicates, or were rejected and why.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { importPurchasesCsv, PurchaseImportError } from "~/models/purchase.server";
import { requireApiAdmin } from "~/models/session.server";
import { MAX_CSV_BYTES } from "~/utils/body-limits";
import { readUploadedFile } from "~/utils/upload.server";

const FAILURE = "Error importing purchases.";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(FAILURE, async () => {
    const admin = await requireApiAdmin(request);
    const file = await readUploadedFile(request, "file", { maxBytes: MAX_CSV_BYTES, missingMessage: "Please select a file first." });
    if (!file.fileName.toLowerCase().endsWith(".csv")) return json({ error: FAILURE, details: "Only .csv files can be imported." }, { status: 400 });
    try {
      const report = await importPurchasesCsv(admin.id, file.bytes, file.fileName);
      return json(report);
    } catch (error) {
      // A malformed file: nothing was stored; say why.
      if (error instanceof PurchaseImportError) return json({ error: FAILURE, details: error.message }, { status: 400 });
      throw error;
    }
  });
}

export function loader() {
  return methodNotAllowed();
}
