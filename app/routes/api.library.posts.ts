import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import type { CacheableHandle } from "~/document-cache.server";
import { loadRequestViewer } from "~/models/entitlement.server";
import { libraryPostsJson, LISTING_VIEWER } from "~/models/library-listing.server";
import { createPost } from "~/models/post-admin.server";
import { keptDataAnswer, readerLookupOf } from "~/models/reader-pages.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES, postCreateSchema } from "~/utils/library-schemas";

/** Answered again before Remix runs while the reader's stamp holds, as the library page is (docs/decisions/025). */
export const handle: CacheableHandle = { keptForReaders: true, guestCacheable: true };

/** GET /api/library/posts: every post the viewer may see, with `unlocked` per viewer. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(LIBRARY_MESSAGES.loadPostsFailed, async () => {
    // One round trip for the viewer; the body is assembled from JSON prepared once per change of
    // the posts, so nothing is serialised per request.
    const body = await libraryPostsJson(await loadRequestViewer(request, LISTING_VIEWER));
    const headers = new Headers({ "Content-Type": "application/json; charset=utf-8", "Cache-Control": "private, no-store" });
    return keptDataAnswer(request, readerLookupOf(context), body, headers);
  });
}

/** POST /api/library/posts: creates a post (admins only). */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(LIBRARY_MESSAGES.updateFailed, async () => {
    const admin = await requireApiAdmin(request);
    const input = await readJson(request, postCreateSchema);
    return json({ message: "Post created.", post: await createPost(admin, input) }, { status: 201 });
  });
}
