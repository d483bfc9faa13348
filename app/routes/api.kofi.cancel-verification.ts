// POST /api/kofi/cancel-verification {email}: drops the pending shop email; answers {message}.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { requireActiveApiUser } from "~/models/restriction.server";
import { cancelShopEmailVerification } from "~/models/shop-email.server";
import { shopEmailSchema } from "~/utils/shop-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to cancel verification.", async () => {
    const user = await requireActiveApiUser(request);
    const input = await readJson(request, shopEmailSchema);
    return json(await cancelShopEmailVerification(user.id, input.email));
  });
}

export function loader() {
  return methodNotAllowed();
}
