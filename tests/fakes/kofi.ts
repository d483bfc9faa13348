// Builds shop-platform (Ko-fi) webhook deliveries the way the shop sends them: a form body with
// one field `data` holding the JSON payload. Shared by tests and scripts/send-fake-kofi.ts.
import { randomUUID } from "node:crypto";

export function kofiPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    verification_token: "test-kofi-token",
    message_id: randomUUID(),
    timestamp: new Date().toISOString(),
    type: "Shop Order",
    is_public: true,
    from_name: "Buyer",
    message: null,
    amount: "4.99",
    url: "https://ko-fi.com/Home/CoffeeShop?txid=00000000",
    email: "buyer@example.com",
    currency: "USD",
    is_subscription_payment: false,
    is_first_subscription_payment: false,
    kofi_transaction_id: randomUUID(),
    shop_items: [{ direct_link_code: "abc123", variation_name: null, quantity: 1 }],
    tier_name: null,
    shipping: null,
    ...overrides,
  };
}

export function kofiFormBody(payload: Record<string, unknown>): URLSearchParams {
  return new URLSearchParams({ data: JSON.stringify(payload) });
}

/** Posts a delivery to a running site; answers the response. */
export async function sendKofiWebhook(url: string, payload: Record<string, unknown>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: kofiFormBody(payload),
    signal: AbortSignal.timeout(10_000),
  });
}
