import type { LoaderFunctionArgs } from "@remix-run/node";
import { isSafeKey, storage } from "~/integrations/storage.server";
import { serveStoredFile } from "~/utils/serve-file.server";

/** Public images kept in storage under `images/` (post fronts, inspiration panels). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const key = `images/${params["*"] ?? ""}`;
  if (!isSafeKey(key) || !/\.(jpg|png|webp)$/.test(key)) return new Response("Not found", { status: 404 });
  const contentType = key.endsWith(".png") ? "image/png" : key.endsWith(".webp") ? "image/webp" : "image/jpeg";
  return serveStoredFile(request, await storage(), key, {
    contentType,
    cacheControl: "public, max-age=31536000, immutable",
  });
}
