// POST /api/kofi/verify-email {email, code}: verifies the pending shop email; answers {message}.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { requireActiveApiUser } from "~/models/restriction.server";
import { verifyShopEmail } from "~/models/shop-email.server";
import { shopEmailCodeSchema } from "~/utils/shop-schemas";

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to verify email.", async () => {
    const user = await requireActiveApiUser(request);
    const input = await readJson(request, shopEmailCodeSchema);
    return json(await verifyShopEmail(user.id, input.email, input.code));
  });
}

export function loader() {
  return methodNotAllowed();
}
