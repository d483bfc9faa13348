// POST /api/kofi/cancel-verification {email}: drops the pending shop email; answers {message}.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson } from "~/api.server";
import { requireActiveApiUser } from "~/models/restriction.server";
import { cancelShopEmailVerification, ShopEmailError } from "~/models/shop-email.server";
import { shopEmailSchema } from "~/utils/shop-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to cancel verification.", async () => {
    const user = await requireActiveApiUser(request);
    const input = await readJson(request, shopEmailSchema);
    try {
      return json(await cancelShopEmailVerification(user.id, input.email));
    } catch (error) {
      if (error instanceof ShopEmailError) return apiError(error.status, error.message);
      throw error;
    }
  });
}

export function loader() {
  return methodNotAllowed();
}
