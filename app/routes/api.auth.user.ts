import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi } from "~/api.server";
import { getCurrentUser } from "~/models/session.server";
import { getUserWithShopEmails, toApiUser } from "~/models/user.server";

export function loader({ request }: LoaderFunctionArgs) {
  return handleApi("Failed to fetch user data or tiers.", async () => {
    const current = await getCurrentUser(request);
    const user = current ? await getUserWithShopEmails(current.id) : null;
    if (!user) return apiError(401, "Not authenticated");
    return json(toApiUser(user), { headers: { "Cache-Control": "private, no-store" } });
  });
}
