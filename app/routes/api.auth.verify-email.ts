import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { verifyEmail } from "~/models/email-verification.server";
import { clientAddress } from "~/utils/client-address.server";
import { verifyEmailSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to verify email.", async () => {
    const input = await readJson(request, verifyEmailSchema);
    await verifyEmail({ ...input, client: clientAddress(request, context) });
    return json({ message: "Email verified successfully." });
  });
}
