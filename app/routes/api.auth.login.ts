// GET: sign in with the support platform (redirect). POST {email, password}: email login, through
// the same "login" form strategy as the /login form (same limits, same refusals).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { formRequest, passwordAuthenticator } from "~/models/passwords.server";
import { createUserSession } from "~/models/session.server";
import { getUserWithShopEmails, toApiUser } from "~/models/user.server";
import { startProviderSignIn } from "~/provider-sign-in.server";
import { loginSchema } from "~/utils/auth-schemas";
import { clientAddress } from "~/utils/client-address.server";
import { CHECKS_PASSWORD } from "~/request-policy.server";

// Checks a password: a bounded wait for a turn and an answer budget under load (server/admission.ts).
export function requestPolicy() {
  return CHECKS_PASSWORD;
}

export const loader = ({ request }: LoaderFunctionArgs) => startProviderSignIn("patreon", request);

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to log in.", async () => {
    // The JSON body is read (and its shape checked) like every /api body, then handed over as a form.
    const { email, password } = await readJson(request, loginSchema);
    const user = await passwordAuthenticator(clientAddress(request, context)).authenticate(
      "login",
      formRequest(request.url, new URLSearchParams({ email, password })),
    );
    const cookie = await createUserSession(user.id);
    const full = await getUserWithShopEmails(user.id);
    return json({ message: "Logged in successfully.", user: toApiUser(full!) }, { headers: { "Set-Cookie": cookie } });
  });
}
