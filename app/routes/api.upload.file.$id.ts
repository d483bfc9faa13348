import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { env } from "~/env.server";
import { addPostVersion, storePostVersionFile } from "~/models/post-version.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { receiveUploadedFile } from "~/utils/upload.server";
import { VERSION_UPLOAD_FIELDS } from "~/utils/version-schemas";
import { adminUploads } from "~/request-policy.server";

export function requestPolicy() {
  return adminUploads("post-file");
}

/**
 * POST /api/upload/file/{id}: multipart `file` (optionally preceded by `label` and `notes`),
 * streamed into storage as the post's new current version.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const stored = await receiveUploadedFile(request, "file", { maxBytes: env().POST_FILE_MAX_BYTES, textFields: VERSION_UPLOAD_FIELDS }, (file) =>
      storePostVersionFile(id, file),
    );
    const { post, version } = await addPostVersion(admin, stored);
    return json({ message: "File uploaded.", post, version: { id: version.id, label: version.label, size: Number(version.size), sha256: version.sha256 } });
  });
}
