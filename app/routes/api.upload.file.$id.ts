import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { env } from "~/env.server";
import { attachPostFile, storePostFile } from "~/models/post-admin.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { receiveUploadedFile } from "~/utils/upload.server";

/** POST /api/upload/file/{id}: multipart `file`, streamed into storage as the post's download. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const stored = await receiveUploadedFile(request, "file", { maxBytes: env().POST_FILE_MAX_BYTES }, (file) => storePostFile(id, file));
    return json({ message: "File uploaded.", post: await attachPostFile(admin, id, stored) });
  });
}
