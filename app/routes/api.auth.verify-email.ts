import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { apiAccountCall, clientAddress, verifyEmail } from "~/models/auth.server";
import { verifyEmailSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to verify email.", async () => {
    const input = await readJson(request, verifyEmailSchema);
    await apiAccountCall(() => verifyEmail({ ...input, client: clientAddress(request, context) }));
    return json({ message: "Email verified successfully." });
  });
}
