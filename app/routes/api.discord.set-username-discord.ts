import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { setUsername } from "~/models/account.server";
import { requireApiUser } from "~/models/session.server";
import { usernameSchema } from "~/utils/auth-schemas";

export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to set username.", async () => {
    const user = await requireApiUser(request);
    const { username } = await readJson(request, usernameSchema);
    const updated = await setUsername(user, username);
    return json({ message: "Username set successfully! Your account is now verified.", fullName: updated.fullName, mailVerified: updated.mailVerified });
  });
}
