// POST /api/webhooks/patreon: the support platform's member webhooks. The signature (hex
// HMAC-MD5 of the raw body) is checked before the body is even parsed; applying a delivery
// again changes nothing, so retries are harmless, and an older delivery replayed later is ignored.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed } from "~/api.server";
import { env } from "~/env.server";
import { parseMember, patreonSignatureValid, type JsonApiDocument } from "~/integrations/patreon.server";
import { applyMemberDelivery } from "~/models/patreon-membership.server";

const MAX_BODY_BYTES = 1024 * 1024;
const TRIGGERS = new Set([
  "members:create",
  "members:update",
  "members:delete",
  "members:pledge:create",
  "members:pledge:update",
  "members:pledge:delete",
]);

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi("Failed to record the support-platform webhook.", async () => {
    if (Number(request.headers.get("Content-Length") ?? 0) > MAX_BODY_BYTES) return apiError(413, "Request body is too large.");
    const raw = Buffer.from(await request.arrayBuffer());
    if (raw.length > MAX_BODY_BYTES) return apiError(413, "Request body is too large.");
    if (!patreonSignatureValid(raw, request.headers.get("X-Patreon-Signature"), env().PATREON_WEBHOOK_SECRET)) {
      return apiError(401, "Invalid signature.");
    }
    const event = request.headers.get("X-Patreon-Event") ?? "";
    let document: JsonApiDocument;
    try {
      document = JSON.parse(raw.toString("utf8")) as JsonApiDocument;
    } catch {
      return apiError(400, "Invalid webhook payload.");
    }
    const resource = Array.isArray(document?.data) ? document.data[0] : document?.data;
    if (!resource || resource.type !== "member") return apiError(400, "Invalid webhook payload.");
    // Unknown triggers are acknowledged so the platform does not queue them forever.
    if (!TRIGGERS.has(event)) return json({ ok: true, ignored: event || "missing event" });

    // What happens follows the signed document, not the unsigned event name: a "delete" is a
    // document whose member no longer has an active pledge.
    const outcome = await applyMemberDelivery(parseMember(resource, document.included));
    return json(outcome.stale ? { ok: true, ignored: "stale" } : { ok: true, matched: outcome.matched });
  });
}

export function loader() {
  return methodNotAllowed();
}
