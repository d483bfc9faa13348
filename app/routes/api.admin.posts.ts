// GET /api/admin/posts: every post (id and title) for the unlocked-content picker.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { listPickerPosts } from "~/models/admin-users.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";

export async function loader({ request }: LoaderFunctionArgs) {
  return handleApi(ADMIN_MESSAGES.fetchPostsFailed, async () => {
    await requireApiAdmin(request);
    return json({ posts: await listPickerPosts() });
  });
}

export async function action() {
  return methodNotAllowed();
}
