import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { apiAccountCall, clientAddress, resendVerification } from "~/models/auth.server";
import { resendSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to resend verification code.", async () => {
    const { email } = await readJson(request, resendSchema);
    await apiAccountCall(() => resendVerification(email, clientAddress(request, context)));
    return json({ message: "Verification code resent to your email." });
  });
}
