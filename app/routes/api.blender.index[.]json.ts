import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi } from "~/api.server";
import { blenderListing } from "~/models/blender-repository.server";
import { BLENDER_MESSAGES } from "~/utils/blender-manifest";

/**
 * GET /api/blender/index.json (`Authorization: Bearer <personal token>`, as Blender sends a
 * repository's access token; a session works too): Blender's remote repository listing, v1, of
 * the Blender extensions the account may download.
 */
export function loader({ request }: LoaderFunctionArgs) {
  return handleApi(BLENDER_MESSAGES.indexFailed, async () => {
    const listing = await blenderListing(request);
    // Per account, and its addresses are secrets: never kept by a shared cache.
    return json(listing, { headers: { "Cache-Control": "private, no-store", Vary: "Cookie, Authorization" } });
  });
}
