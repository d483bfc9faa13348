import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { resendVerification } from "~/models/email-verification.server";
import { clientAddress } from "~/utils/client-address.server";
import { resendSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to resend verification code.", async () => {
    const { email } = await readJson(request, resendSchema);
    await resendVerification(email, clientAddress(request, context));
    return json({ message: "Verification code resent to your email." });
  });
}
