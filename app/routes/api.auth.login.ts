// GET: sign in with the support platform (redirect). POST {email, password}: email login.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { startProviderSignIn } from "~/models/auth.server";
import { apiAccountCall, clientAddress, loginWithPassword } from "~/models/auth.server";
import { createUserSession } from "~/models/session.server";
import { getUserWithShopEmails, toApiUser } from "~/models/user.server";
import { loginSchema } from "~/utils/auth-schemas";

export const loader = ({ request }: LoaderFunctionArgs) => startProviderSignIn("patreon", request);

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to log in.", async () => {
    const input = await readJson(request, loginSchema);
    const user = await apiAccountCall(() => loginWithPassword({ ...input, client: clientAddress(request, context) }));
    const cookie = await createUserSession(user.id);
    const full = await getUserWithShopEmails(user.id);
    return json({ message: "Logged in successfully.", user: toApiUser(full!) }, { headers: { "Set-Cookie": cookie } });
  });
}
