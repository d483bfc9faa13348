import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { PASSWORD_RESET_MESSAGE, resetPassword } from "~/models/passwords.server";
import { clientAddress } from "~/utils/client-address.server";
import { resetPasswordSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to reset password.", async () => {
    const input = await readJson(request, resetPasswordSchema);
    await resetPassword({ ...input, client: clientAddress(request, context) });
    return json({ message: PASSWORD_RESET_MESSAGE });
  });
}
