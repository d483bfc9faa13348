// PUT /api/admin/posts/{id}/files/{fileId} {role, label, gateTierIds, gateShopItem}: changes a
// version file's role, label and own gate (docs/api.md#version-files); its bytes stay.
// DELETE /api/admin/posts/{id}/files/{fileId}: removes the file from its version (the editor's
// Remove calls the same model function).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { fileJson, removeVersionFile, updateVersionFile } from "~/models/version-files.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { versionFileSchema } from "~/utils/version-file-schemas";
import { VERSION_FILE_MESSAGES } from "~/utils/version-file-words";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method === "DELETE") {
    return handleApi(VERSION_FILE_MESSAGES.removeFailed, async () => {
      const admin = await requireApiAdmin(request);
      const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
      const fileId = requireIdParam(params.fileId, VERSION_FILE_MESSAGES.fileNotFound);
      await removeVersionFile(admin, postId, fileId);
      return json({ message: VERSION_FILE_MESSAGES.fileRemoved });
    });
  }
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(VERSION_FILE_MESSAGES.fileFailed, async () => {
    const admin = await requireApiAdmin(request);
    const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const fileId = requireIdParam(params.fileId, VERSION_FILE_MESSAGES.fileNotFound);
    const input = await readJson(request, versionFileSchema);
    return json({ message: VERSION_FILE_MESSAGES.fileUpdated, file: fileJson(await updateVersionFile(admin, postId, fileId, input)) });
  });
}
