import type { LoaderFunctionArgs } from "@remix-run/node";
import { isSafeKey, storage } from "~/integrations/storage.server";
import { imageVariantKey } from "~/models/image-variant.server";
import { storedImageAudience } from "~/models/library-listing.server";
import { getCurrentUser } from "~/models/session.server";
import { parseImageWidth } from "~/utils/responsive-images";
import { serveStoredFile } from "~/utils/serve-file.server";

/**
 * Images kept in storage under `images/` (post fronts, inspiration panels); `?w=` picks a smaller
 * variant. The front of a post not shown to everyone (disabled or scheduled) is served privately
 * to those who see it (admins) and answers 404 to everyone else; every other image is public and
 * immutable (its address changes with the post, app/models/library-listing.server.ts).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const key = `images/${params["*"] ?? ""}`;
  if (!isSafeKey(key) || !/\.(jpg|png|webp)$/.test(key)) return new Response("Not found", { status: 404 });
  const audience = await storedImageAudience(key, () => getCurrentUser(request));
  if (audience === "hidden") return new Response("Not found", { status: 404, headers: { "Cache-Control": "no-store" } });
  const width = parseImageWidth(new URL(request.url).searchParams.get("w"));
  const store = await storage();
  const served = await imageVariantKey(store, key, width);
  const contentType = served.endsWith(".png") ? "image/png" : served.endsWith(".webp") ? "image/webp" : "image/jpeg";
  return serveStoredFile(request, store, served, {
    contentType,
    cacheControl: audience === "private" ? "private, no-store" : "public, max-age=31536000, immutable",
  });
}
