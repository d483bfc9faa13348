// POST /api/admin/posts/{id}/versions/{versionId}/files: multipart `role`, `label`, `gateTierIds`
// (comma-separated), `gateShopItem`, then `file`: adds a variant, optional add-on or translation to
// the version (docs/api.md#version-files), streamed into storage like a post file.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { env } from "~/env.server";
import { storePostVersionFile } from "~/models/post-version.server";
import { addVersionFile, fileJson, versionFileInputOf } from "~/models/version-files.server";
import { requireApiAdmin } from "~/models/session.server";
import { adminUploads } from "~/request-policy.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { receiveUploadedFile } from "~/utils/upload.server";
import { VERSION_FILE_FIELDS, versionFileFieldsToInput } from "~/utils/version-file-schemas";
import { VERSION_FILE_MESSAGES } from "~/utils/version-file-words";
import { VERSION_MESSAGES } from "~/utils/version-schemas";

export function requestPolicy() {
  return adminUploads("post-file");
}

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(VERSION_FILE_MESSAGES.fileFailed, async () => {
    const admin = await requireApiAdmin(request);
    const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const versionId = requireIdParam(params.versionId, VERSION_MESSAGES.versionNotFound);
    const { stored, input } = await receiveUploadedFile(
      request,
      "file",
      { maxBytes: env().POST_FILE_MAX_BYTES, textFields: VERSION_FILE_FIELDS },
      // The role fields are checked before a byte is stored.
      async (file) => {
        const input = versionFileInputOf(versionFileFieldsToInput(file.fields));
        return { input, stored: await storePostVersionFile(postId, { ...file, fields: {} }) };
      },
    );
    const file = await addVersionFile(admin, postId, versionId, stored, input);
    return json({ message: VERSION_FILE_MESSAGES.fileAdded, file: fileJson(file) }, { status: 201 });
  });
}
