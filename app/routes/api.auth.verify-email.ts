import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { verifyEmail } from "~/models/email-verification.server";
import { renewUserSession, sessionUserId } from "~/models/session.server";
import { clientAddress } from "~/utils/client-address.server";
import { verifyEmailSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to verify email.", async () => {
    const input = await readJson(request, verifyEmailSchema);
    // Read first: the proof ends every session of the account.
    const signedInAs = await sessionUserId(request);
    const verified = await verifyEmail({ ...input, client: clientAddress(request, context) });
    // A browser signed in to this account goes on in a fresh session; nobody else is signed in.
    const headers = signedInAs === verified.id ? { "Set-Cookie": await renewUserSession(request, verified.id) } : undefined;
    return json({ message: "Email verified successfully." }, { headers });
  });
}
