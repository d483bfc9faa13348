import type { LoaderFunctionArgs } from "@remix-run/node";
import { storage } from "~/integrations/storage.server";
import { panelImageKey } from "~/models/panel.server";
import { serveStoredFile } from "~/utils/serve-file.server";

/** `/panel_images/{id}.jpg`: panel images, cached for a year (their URL changes with the image). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const match = /^([A-Za-z0-9_-]{1,64})\.jpg$/.exec(params.file ?? "");
  if (!match?.[1]) return new Response("Not found", { status: 404 });
  return serveStoredFile(request, await storage(), panelImageKey(match[1]), {
    contentType: "image/jpeg",
    cacheControl: "public, max-age=31536000, immutable",
  });
}
