import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { toggleAdmin } from "~/models/account.server";
import { requireApiUser } from "~/models/session.server";

export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to toggle admin status.", async () => {
    const user = await requireApiUser(request);
    const isAdmin = await toggleAdmin(user);
    return json({ isAdmin, message: "Admin status updated." });
  });
}
