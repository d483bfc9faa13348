// POST {code}: exchanges the one-time login code of a provider sign-in for a session.
import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { exchangeProviderLoginCode } from "~/provider-sign-in.server";
import { jsonWithSuccess } from "~/toast.server";

const schema = z.object({
  code: z
    .string({ required_error: "No authorization code found. Please try logging in again." })
    .min(1, "No authorization code found. Please try logging in again.")
    .max(200),
});

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Authentication failed.", async () => {
    const { code } = await readJson(request, schema);
    const headers = await exchangeProviderLoginCode(request, context, code);
    // The flash toast greets the user on the /login page the browser loads next.
    return jsonWithSuccess({ message: "Logged in successfully." }, "Logged in successfully.", { headers });
  });
}
