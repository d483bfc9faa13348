import type { LoaderFunctionArgs } from "@remix-run/node";
import { storage } from "~/integrations/storage.server";
import { imageVariantKey } from "~/models/image-variant.server";
import { getPanel, panelImageKey } from "~/models/panel.server";
import { parseImageWidth } from "~/utils/responsive-images";
import { serveStoredFile } from "~/utils/serve-file.server";

/**
 * `/panel_images/{id}.jpg`: panel images. Requested with the current `?v=` version (as the site
 * links them) they are cached for a year; otherwise caches must revalidate, so a changed image
 * is never shown stale.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const match = /^([A-Za-z0-9_-]{1,64})\.jpg$/.exec(params.file ?? "");
  if (!match?.[1]) return new Response("Not found", { status: 404 });
  const panel = await getPanel(match[1]);
  if (!panel?.imageVersion) return new Response("Not found", { status: 404 });
  const url = new URL(request.url);
  const version = url.searchParams.get("v");
  const store = await storage();
  const key = await imageVariantKey(store, panelImageKey(panel.id), parseImageWidth(url.searchParams.get("w")));
  return serveStoredFile(request, store, key, {
    contentType: "image/jpeg",
    cacheControl: version === panel.imageVersion ? "public, max-age=31536000, immutable" : "public, max-age=0, must-revalidate",
  });
}
