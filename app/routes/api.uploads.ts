import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { startUpload } from "~/models/upload-session.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { uploadSessionSchema } from "~/utils/version-schemas";

const NO_STORE = { "Cache-Control": "private, no-store" };

/**
 * POST /api/uploads `{ postId, fileName, size, label?, notes? }` (admins): starts a resumable
 * upload; 201 with its status (id, part size and count, and where each part goes).
 */
export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, uploadSessionSchema);
    return json(await startUpload(admin, input), { status: 201, headers: NO_STORE });
  });
}
