import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { apiAccountCall, clientAddress, PASSWORD_RESET_MESSAGE, resetPassword } from "~/models/auth.server";
import { resetPasswordSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to reset password.", async () => {
    const input = await readJson(request, resetPasswordSchema);
    await apiAccountCall(() => resetPassword({ ...input, client: clientAddress(request, context) }));
    return json({ message: PASSWORD_RESET_MESSAGE });
  });
}
