// POST /api/webhooks/kofi: the shop platform's webhook (form field `data` holding JSON).
// The shared token is checked before anything is stored; valid deliveries always get a 200,
// duplicates too, so the shop stops resending.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed } from "~/api.server";
import { env } from "~/env.server";
import { receiveKofiWebhook } from "~/models/purchase.server";
import { CROSS_SITE_ALLOWED } from "~/request-policy.server";

// Sent by the shop, proven by its verification token.
export function requestPolicy() {
  return CROSS_SITE_ALLOWED;
}

const MAX_BODY_BYTES = 256 * 1024;

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to record the shop webhook.", async () => {
    if (Number(request.headers.get("Content-Length") ?? 0) > MAX_BODY_BYTES) return apiError(413, "Request body is too large.");
    const text = await request.text();
    if (text.length > MAX_BODY_BYTES) return apiError(413, "Request body is too large.");
    const data = new URLSearchParams(text).get("data");
    if (!data) return apiError(400, "Missing data field.");
    const outcome = await receiveKofiWebhook(data, env().KOFI_VERIFICATION_TOKEN);
    return json({ ok: true, ...outcome });
  });
}

export function loader() {
  return methodNotAllowed();
}
