import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { setPassword } from "~/models/passwords.server";
import { requireApiUser } from "~/models/session.server";
import { setPasswordSchema } from "~/utils/auth-schemas";
import { CHECKS_PASSWORD } from "~/request-policy.server";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to set password.", async () => {
    const user = await requireApiUser(request);
    const { newPassword } = await readJson(request, setPasswordSchema);
    await setPassword(user, newPassword);
    return json({ message: "Password set successfully." });
  });
}
