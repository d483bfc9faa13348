import type { LoaderFunctionArgs } from "@remix-run/node";
import { storage } from "~/integrations/storage.server";
import { getPanel, panelImageKey } from "~/models/panel.server";
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
  const version = new URL(request.url).searchParams.get("v");
  return serveStoredFile(request, await storage(), panelImageKey(panel.id), {
    contentType: "image/jpeg",
    cacheControl: version === panel.imageVersion ? "public, max-age=31536000, immutable" : "public, max-age=0, must-revalidate",
  });
}
