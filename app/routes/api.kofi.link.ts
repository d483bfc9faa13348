// POST /api/kofi/link {email}: stores the shop email as pending and mails a code; answers {message}.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { requireActiveApiUser } from "~/models/restriction.server";
import { linkShopEmail } from "~/models/shop-email.server";
import { clientAddress } from "~/utils/client-address.server";
import { shopEmailSchema } from "~/utils/shop-schemas";

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to send verification code.", async () => {
    const user = await requireActiveApiUser(request);
    const input = await readJson(request, shopEmailSchema);
    return json(await linkShopEmail(user.id, input.email, clientAddress(request, context)));
  });
}

export function loader() {
  return methodNotAllowed();
}
