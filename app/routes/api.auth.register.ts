import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { registerWithPassword } from "~/models/passwords.server";
import { clientAddress } from "~/utils/client-address.server";
import { createUserSession } from "~/models/session.server";
import { getUserWithShopEmails, toApiUser } from "~/models/user.server";
import { registerSchema } from "~/utils/auth-schemas";
import { CHECKS_PASSWORD } from "~/request-policy.server";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to sign up.", async () => {
    const input = await readJson(request, registerSchema);
    const user = await registerWithPassword({ ...input, client: clientAddress(request, context) });
    const cookie = await createUserSession(user.id);
    const full = await getUserWithShopEmails(user.id);
    return json({ message: "Account created and logged in successfully.", user: toApiUser(full!) }, { status: 201, headers: { "Set-Cookie": cookie } });
  });
}
