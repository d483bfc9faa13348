import { describe, expect, it, vi } from "vitest";

// Set before any module reads the (cached) configuration.
vi.hoisted(() => {
  process.env.KOFI_VERIFICATION_TOKEN = "test-kofi-token";
});
import { db } from "~/db.server";
import * as kofiWebhook from "~/routes/api.webhooks.kofi";
import { listLibraryPosts } from "~/models/library-listing.server";
import { kofiPayload } from "./fakes/kofi";
import { callRoute, createTestUser, readJsonBody } from "./helpers";

function deliver(payload: Record<string, unknown>) {
  return callRoute(kofiWebhook, {
    method: "POST",
    path: "/api/webhooks/kofi",
    form: { data: JSON.stringify(payload) },
  });
}

async function createPost(id: string, kofiId: string) {
  return db.post.create({ data: { id, title: `Post ${id}`, kofiId, paidContent: true, isKofiOnly: true } });
}

/** The posts the library shows unlocked to the user: what production reads (viewer_context). */
async function unlockedPostIds(userId: string): Promise<string[]> {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  return (await listLibraryPosts(user)).posts.filter((post) => post.unlocked).map((post) => post.postId);
}

describe("POST /api/webhooks/kofi", () => {
  it("records each shop item of a Shop Order as a purchase", async () => {
    const payload = kofiPayload({
      email: "Buyer.One@Example.com",
      timestamp: "2026-03-04T05:06:07Z",
      kofi_transaction_id: "tx-1",
      shop_items: [
        { direct_link_code: "item-a", variation_name: null, quantity: 1 },
        { direct_link_code: "item-b", variation_name: "Blue", quantity: 1 },
      ],
    });
    const response = await deliver(payload);
    expect(response.status).toBe(200);
    const purchases = await db.purchase.findMany({ where: { transactionId: "tx-1" }, orderBy: { kofiItemCode: "asc" } });
    expect(purchases.map((p) => [p.email, p.kofiItemCode, p.source, p.purchasedAt.toISOString()])).toEqual([
      ["buyer.one@example.com", "item-a", "WEBHOOK", "2026-03-04T05:06:07.000Z"],
      ["buyer.one@example.com", "item-b", "WEBHOOK", "2026-03-04T05:06:07.000Z"],
    ]);
    expect(await db.webhookDelivery.count({ where: { source: "KOFI", deliveryId: payload.message_id as string } })).toBe(1);
  });

  it("answers 200 to a resent delivery and stores nothing twice", async () => {
    const payload = kofiPayload({ kofi_transaction_id: "tx-dup", shop_items: [{ direct_link_code: "dup-item", quantity: 1 }] });
    const first = await deliver(payload);
    const second = await deliver(payload);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(await readJsonBody(second)).toMatchObject({ status: "duplicate" });
    expect(await db.purchase.count({ where: { transactionId: "tx-dup" } })).toBe(1);
    expect(await db.webhookDelivery.count({ where: { deliveryId: payload.message_id as string } })).toBe(1);
    // A new message for the same transaction and item (the shop retrying with a new id) adds nothing either.
    const again = await deliver({ ...payload, message_id: "another-message" });
    expect(again.status).toBe(200);
    expect(await db.purchase.count({ where: { transactionId: "tx-dup" } })).toBe(1);
  });

  it("stores a delivery once when the shop resends it in parallel", async () => {
    const payload = kofiPayload({ kofi_transaction_id: "tx-race", shop_items: [{ direct_link_code: "race-item", quantity: 1 }] });
    const responses = await Promise.all(Array.from({ length: 5 }, () => deliver(payload)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const outcomes = await Promise.all(responses.map((response) => readJsonBody<{ status: string }>(response)));
    expect(outcomes.filter((outcome) => outcome.status === "recorded")).toHaveLength(1);
    expect(await db.purchase.count({ where: { transactionId: "tx-race" } })).toBe(1);
  });

  it("refuses a forged delivery with 401 and stores nothing", async () => {
    const payload = kofiPayload({ verification_token: "wrong-token", kofi_transaction_id: "tx-forged" });
    const response = await deliver(payload);
    expect(response.status).toBe(401);
    expect(await readJsonBody(response)).toEqual({ error: "Invalid verification token." });
    expect(await db.purchase.count({ where: { transactionId: "tx-forged" } })).toBe(0);
    expect(await db.webhookDelivery.count({ where: { deliveryId: payload.message_id as string } })).toBe(0);
    // A token of another length is refused the same way (no length leak, no crash).
    const short = await deliver(kofiPayload({ verification_token: "x" }));
    expect(short.status).toBe(401);
  });

  it("records the usable items of an order that also holds a broken one", async () => {
    const response = await deliver(
      kofiPayload({
        kofi_transaction_id: "tx-mixed",
        shop_items: [{ direct_link_code: "", quantity: 1 }, { quantity: 1 }, { direct_link_code: "good-item", quantity: 1 }],
      }),
    );
    expect(response.status).toBe(200);
    expect((await db.purchase.findMany({ where: { transactionId: "tx-mixed" } })).map((p) => p.kofiItemCode)).toEqual(["good-item"]);
  });

  it("keeps a purchase whose timestamp cannot be read, dated at receipt", async () => {
    const before = Date.now();
    const response = await deliver(kofiPayload({ timestamp: "yesterday-ish", kofi_transaction_id: "tx-odd-time" }));
    expect(response.status).toBe(200);
    const purchase = await db.purchase.findFirstOrThrow({ where: { transactionId: "tx-odd-time" } });
    expect(purchase.purchasedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("answers 400 for a body without a valid data field", async () => {
    const missing = await callRoute(kofiWebhook, { method: "POST", form: { other: "1" } });
    expect(missing.status).toBe(400);
    const notJson = await callRoute(kofiWebhook, { method: "POST", form: { data: "{not json" } });
    expect(notJson.status).toBe(400);
    expect(await readJsonBody(notJson)).toEqual({ error: "Invalid webhook payload." });
  });

  it("unlocks the purchased post for the account that verified the buyer's email", async () => {
    await createPost("post-kofi-1", "shopcode1");
    const owner = await createTestUser();
    const other = await createTestUser();
    await db.shopEmail.create({ data: { userId: owner.id, email: "fan@example.com", verifiedEmail: "fan@example.com", verifiedAt: new Date() } });
    // Another account has the same address only pending: it must not get the post.
    await db.shopEmail.create({ data: { userId: other.id, email: "fan@example.com" } });
    expect(await unlockedPostIds(owner.id)).toEqual([]);
    const response = await deliver(kofiPayload({ email: "FAN@example.com", shop_items: [{ direct_link_code: "shopcode1", quantity: 1 }] }));
    expect(response.status).toBe(200);
    expect(await unlockedPostIds(owner.id)).toEqual(["post-kofi-1"]);
    expect(await unlockedPostIds(other.id)).toEqual([]);
  });

  it("updates kofi_current_tier for the account of a Subscription payment", async () => {
    const member = await createTestUser();
    await db.shopEmail.create({ data: { userId: member.id, email: "member@example.com", verifiedEmail: "member@example.com", verifiedAt: new Date() } });
    const response = await deliver(
      kofiPayload({ type: "Subscription", email: "member@example.com", shop_items: null, tier_name: "Gold", is_subscription_payment: true }),
    );
    expect(response.status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { id: member.id } })).kofiCurrentTier).toBe("Gold");
    expect(await db.purchase.count({ where: { email: "member@example.com" } })).toBe(0);
  });
});
