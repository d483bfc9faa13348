// POST /api/webhooks/patreon: the support platform's member webhooks (receivePatreonWebhook).
// Applying a delivery again changes nothing, so retries are harmless, and an older delivery
// replayed later is ignored.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed } from "~/api.server";
import { env } from "~/env.server";
import { receivePatreonWebhook } from "~/models/patreon-membership.server";
import { CROSS_SITE_ALLOWED } from "~/request-policy.server";

// Sent by the support platform, proven by its signature.
export function requestPolicy() {
  return CROSS_SITE_ALLOWED;
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to record the support-platform webhook.", async () => {
    if (Number(request.headers.get("Content-Length") ?? 0) > MAX_BODY_BYTES) return apiError(413, "Request body is too large.");
    const raw = Buffer.from(await request.arrayBuffer());
    if (raw.length > MAX_BODY_BYTES) return apiError(413, "Request body is too large.");
    const answer = await receivePatreonWebhook({
      raw,
      signature: request.headers.get("X-Patreon-Signature"),
      event: request.headers.get("X-Patreon-Event") ?? "",
      secret: env().PATREON_WEBHOOK_SECRET,
    });
    return json(answer);
  });
}

export function loader() {
  return methodNotAllowed();
}
