import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { abortUpload, UPLOAD_MESSAGES, uploadStatus } from "~/models/upload-session.server";
import { requireApiUser } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

const NO_STORE = { "Cache-Control": "private, no-store" };

/** GET /api/uploads/{uploadId}: what arrived, and where the missing parts go (fresh part URLs on S3). */
export function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const user = await requireApiUser(request);
    return json(await uploadStatus(user, params.uploadId ?? ""), { headers: NO_STORE });
  });
}

/** DELETE /api/uploads/{uploadId}: cancels the upload and drops its parts. */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "DELETE") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const user = await requireApiUser(request);
    await abortUpload(user, params.uploadId ?? "");
    return json({ message: UPLOAD_MESSAGES.aborted });
  });
}
