// POST {code}: exchanges the one-time login code of a provider sign-in for a session.
import type { ActionFunctionArgs } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { exchangeProviderLoginCode } from "~/provider-sign-in.server";
import { jsonWithSuccess } from "~/toast.server";
import { providerLoginCodeSchema } from "~/utils/auth-schemas";

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Authentication failed.", async () => {
    const { code } = await readJson(request, providerLoginCodeSchema);
    const headers = await exchangeProviderLoginCode(request, context, code);
    // The flash toast greets the user on the /login page the browser loads next.
    return jsonWithSuccess({ message: "Logged in successfully." }, "Logged in successfully.", { headers });
  });
}
