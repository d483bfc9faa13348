import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { setPostOrderDate } from "~/models/post-admin.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES, orderSchema } from "~/utils/library-schemas";

/** PUT /api/library/posts/{id}/order {orderDate}: admins only. */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.orderFailed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const { orderDate } = await readJson(request, orderSchema);
    return json({ post: await setPostOrderDate(admin, id, orderDate) });
  });
}
