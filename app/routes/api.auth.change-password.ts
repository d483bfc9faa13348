import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { changePassword } from "~/models/passwords.server";
import { readSessionId, requireApiUser } from "~/models/session.server";
import { changePasswordSchema } from "~/utils/auth-schemas";
import { CHECKS_PASSWORD } from "~/request-policy.server";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

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
