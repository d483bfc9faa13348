// POST /api/kofi/link {email}: stores the shop email as pending and mails a code; answers {message}.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson } from "~/api.server";
import { clientAddress } from "~/models/auth.server";
import { requireActiveApiUser } from "~/models/restriction.server";
import { linkShopEmail, ShopEmailError } from "~/models/shop-email.server";
import { shopEmailSchema } from "~/utils/shop-schemas";

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to send verification code.", async () => {
    const user = await requireActiveApiUser(request);
    const input = await readJson(request, shopEmailSchema);
    try {
      return json(await linkShopEmail(user.id, input.email, clientAddress(request, context)));
    } catch (error) {
      if (error instanceof ShopEmailError) return apiError(error.status, error.message);
      throw error;
    }
  });
}

export function loader() {
  return methodNotAllowed();
}
