import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { requestPasswordReset } from "~/models/passwords.server";
import { clientAddress } from "~/utils/client-address.server";
import { forgotPasswordSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to send reset code. Please try again.", async () => {
    const { email } = await readJson(request, forgotPasswordSchema);
    const message = await requestPasswordReset(email, clientAddress(request, context));
    return json({ message });
  });
}
