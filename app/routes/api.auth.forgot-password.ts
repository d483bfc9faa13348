import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { apiAccountCall, clientAddress, requestPasswordReset } from "~/models/auth.server";
import { forgotPasswordSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to send reset code. Please try again.", async () => {
    const { email } = await readJson(request, forgotPasswordSchema);
    const message = await apiAccountCall(() => requestPasswordReset(email, clientAddress(request, context)));
    return json({ message });
  });
}
