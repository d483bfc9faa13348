// POST /api/admin/posts/getByIds {postIds}: the titles of a user's unlocked content.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { getPostsByIds } from "~/models/admin-users.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES, postIdsSchema } from "~/utils/admin-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(ADMIN_MESSAGES.fetchUnlockedFailed, async () => {
    await requireApiAdmin(request);
    const { postIds } = await readJson(request, postIdsSchema);
    return json({ posts: await getPostsByIds(postIds) });
  });
}

export async function loader() {
  return methodNotAllowed();
}
