import { json } from "@remix-run/node";
import { handleApi } from "~/api.server";
import { listTiers } from "~/models/tier.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/** GET /api/library/tiers: the support-platform tiers (tierId, title). */
export async function loader() {
  return handleApi(LIBRARY_MESSAGES.fetchFailed, async () => json(await listTiers()));
}
