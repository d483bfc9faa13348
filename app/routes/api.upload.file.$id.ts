import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { env } from "~/env.server";
import { uploadPostFile } from "~/models/post.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/** POST /api/upload/file/{id}: multipart `file`, streamed into storage as the post's download. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.fileUploadFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    return json({ message: "File uploaded.", post: await uploadPostFile(admin, id, request, env().POST_FILE_MAX_BYTES) });
  });
}
