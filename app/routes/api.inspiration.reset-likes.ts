import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { resetLikes } from "~/models/inspiration.server";
import { requireApiAdmin } from "~/models/session.server";

/** POST /api/inspiration/reset-likes: removes every like (admins only). */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to reset likes.", async () => {
    const admin = await requireApiAdmin(request);
    const removed = await resetLikes(admin.id);
    return json({ message: "Likes reset.", removed });
  });
}
