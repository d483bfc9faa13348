import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, requireIdParam } from "~/api.server";
import { getPostSummary, setPostImage } from "~/models/post-admin.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { readUploadedFile, SELECT_IMAGE_MESSAGE } from "~/utils/upload.server";
import { adminUploads } from "~/request-policy.server";

export function requestPolicy() {
  return adminUploads("image");
}

/** POST /api/upload/front/{id}: multipart `image` (png, jpg, jpeg) for a post; admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.imageFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    await getPostSummary(id);
    const file = await readUploadedFile(request, "image", { missingMessage: SELECT_IMAGE_MESSAGE });
    return json({ message: "Image uploaded.", post: await setPostImage(admin, id, file.bytes) });
  });
}
