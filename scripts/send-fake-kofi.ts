// Sends a shop (Ko-fi) webhook delivery to a running site, as the shop would: a Shop Order for
// one or more items bought with an email. For the local demo and manual checks.
//
//   KOFI_VERIFICATION_TOKEN=demo-token node --import tsx scripts/send-fake-kofi.ts \
//     --email fan@example.com --item <post kofi_id> [--item <another>] [--url http://localhost:3000]
//     [--type "Shop Order"|Subscription] [--tier Gold]
//
// The site must run with the same KOFI_VERIFICATION_TOKEN.
import { parseArgs } from "node:util";
import { kofiPayload, sendKofiWebhook } from "../tests/fakes/kofi.ts";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: process.env.APP_URL ?? "http://localhost:3000" },
    email: { type: "string" },
    item: { type: "string", multiple: true, default: [] },
    type: { type: "string", default: "Shop Order" },
    tier: { type: "string" },
    token: { type: "string", default: process.env.KOFI_VERIFICATION_TOKEN },
  },
});

if (!values.email || !values.token || (values.type === "Shop Order" && values.item.length === 0)) {
  console.error("usage: send-fake-kofi.ts --email <buyer> --item <kofi_id> [--item ...] [--url <site>] [--type <type>] [--tier <name>]");
  console.error("KOFI_VERIFICATION_TOKEN (or --token) must match the site's.");
  process.exit(2);
}

const payload = kofiPayload({
  verification_token: values.token,
  type: values.type,
  email: values.email,
  from_name: values.email.split("@")[0],
  shop_items: values.type === "Shop Order" ? values.item.map((code) => ({ direct_link_code: code, variation_name: null, quantity: 1 })) : null,
  tier_name: values.tier ?? null,
  is_subscription_payment: values.type === "Subscription",
});

const endpoint = `${values.url.replace(/\/$/, "")}/api/webhooks/kofi`;
const response = await sendKofiWebhook(endpoint, payload);
console.log(`${response.status} ${await response.text()}`);
process.exit(response.ok ? 0 : 1);
