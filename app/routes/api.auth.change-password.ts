import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { changePassword } from "~/models/passwords.server";
import { readSessionId, requireApiUser } from "~/models/session.server";
import { changePasswordSchema } from "~/utils/auth-schemas";

export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to change password.", async () => {
    const user = await requireApiUser(request);
    const input = await readJson(request, changePasswordSchema);
    const keepSessionId = await readSessionId(request);
    await changePassword(user, input, keepSessionId);
    return json({ message: "Password changed successfully." });
  });
}
