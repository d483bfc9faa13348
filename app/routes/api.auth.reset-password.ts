import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { PASSWORD_RESET_MESSAGE, resetPassword } from "~/models/passwords.server";
import { clientAddress } from "~/utils/client-address.server";
import { resetPasswordSchema } from "~/utils/auth-schemas";
import { CHECKS_PASSWORD } from "~/request-policy.server";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to reset password.", async () => {
    const input = await readJson(request, resetPasswordSchema);
    await resetPassword({ ...input, client: clientAddress(request, context) });
    return json({ message: PASSWORD_RESET_MESSAGE });
  });
}
