import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { completeUpload } from "~/models/upload-session.server";
import { requireApiUser } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/**
 * POST /api/uploads/{uploadId}/complete: once every part arrived, the file becomes the post's new
 * current version through the same checks as POST /api/upload/file/{id}; answers as that does.
 */
export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const user = await requireApiUser(request);
    const { post, version } = await completeUpload(user, params.uploadId ?? "");
    return json({ message: "File uploaded.", post, version: { id: version.id, label: version.label, size: Number(version.size), sha256: version.sha256 } });
  });
}
