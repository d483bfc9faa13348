// PUT /api/admin/tiers/{id} {amount_cents, currency}: a tier's price per month, shown on its
// Subscribe buttons (docs/api.md#prices).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { setTierPrice } from "~/models/catalog.server";
import { requireApiAdmin } from "~/models/session.server";
import { CATALOG_MESSAGES, tierPriceSchema } from "~/utils/catalog-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(CATALOG_MESSAGES.tierFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, CATALOG_MESSAGES.tierNotFound);
    const input = await readJson(request, tierPriceSchema);
    return json({ tier: await setTierPrice(admin.id, id, input) });
  });
}
