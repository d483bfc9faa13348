import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi } from "~/api.server";
import { libraryManifest } from "~/models/library-manifest.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

/**
 * GET /api/library/manifest (a session or `Authorization: Bearer`): `{ generated_at, posts }`,
 * one entry per post the account may download now, with an ETag; `If-None-Match` answers 304.
 */
export function loader({ request }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.manifestFailed, async () => {
    const answer = await libraryManifest(request, request.headers.get("If-None-Match"));
    // Per account, and its addresses are secrets: never kept by a shared cache.
    const headers = { ETag: answer.etag, "Cache-Control": "private, no-cache", Vary: "Cookie, Authorization" };
    if (!answer.manifest) return new Response(null, { status: 304, headers });
    return json(answer.manifest, { headers });
  });
}
