import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi } from "~/api.server";
import { getCurrentUser } from "~/models/session.server";
import { getAccount } from "~/models/user.server";

export function loader({ request }: LoaderFunctionArgs) {
  return handleApi("Failed to fetch user data or tiers.", async () => {
    const current = await getCurrentUser(request);
    const account = current ? await getAccount(current) : null;
    if (!account) return apiError(401, "Not authenticated");
    return json(account, { headers: { "Cache-Control": "private, no-store" } });
  });
}
