import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.PATREON_WEBHOOK_SECRET = "test-webhook-secret";
});

import { db } from "~/db.server";
import { pledgeHistoryOf } from "~/models/patreon-membership.server";
import * as patreonWebhook from "~/routes/api.webhooks.patreon";
import { memberWebhookBody, signPatreonWebhook, type FakeMember, type FakeTier } from "./fakes/patreon-api";
import { callRoute, createTestUser, readJsonBody } from "./helpers";

const SECRET = "test-webhook-secret";
const TIERS: FakeTier[] = [
  { id: "8824971", title: "Tier 1", amountCents: 300 },
  { id: "21786318", title: "Tier 3", amountCents: 1000 },
];

function deliver(event: string, body: string, signature = signPatreonWebhook(body, SECRET)) {
  return callRoute(patreonWebhook, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/json", "X-Patreon-Event": event, "X-Patreon-Signature": signature },
  });
}

function member(patch: Partial<FakeMember> = {}): FakeMember {
  return {
    memberId: "m-1",
    patreonUserId: "pu-hook",
    email: "hook@patreon.example",
    fullName: "Hook Patron",
    patronStatus: "active_patron",
    tierIds: ["21786318"],
    ...patch,
  };
}

describe("POST /api/webhooks/patreon", () => {
  it("updates the member's tier and pledge history; a repeated delivery changes nothing", async () => {
    await db.tier.createMany({ data: TIERS.map((tier) => ({ id: tier.id, title: tier.title })), skipDuplicates: true });
    await db.post.create({
      data: {
        id: "hook-post",
        title: "Hook Post",
        firstPublishedAt: new Date("2024-06-01T00:00:00Z"),
        tiers: { create: [{ tierId: "21786318", kind: "FIRST" }] },
      },
    });
    const user = await createTestUser({ patreonId: "pu-hook" });
    const body = memberWebhookBody(
      member({
        pledgeHistory: [
          { id: "pledge_start:500", type: "pledge_start", date: "2024-05-01T00:00:00Z", amountCents: 1000, tierId: "21786318", tierTitle: "Tier 3" },
        ],
      }),
      TIERS,
    );
    const first = await deliver("members:pledge:create", body);
    expect(first.status).toBe(200);
    expect(await readJsonBody(first)).toEqual({ ok: true, matched: true });
    const second = await deliver("members:pledge:create", body);
    expect(second.status).toBe(200);

    const stored = await db.user.findUniqueOrThrow({ where: { id: user.id }, include: { pledgeEvents: true, unlockedContent: true } });
    expect(stored.currentTierId).toBe("21786318");
    expect(stored.pledgeEvents.map((event) => [event.id, event.amountCents, event.tierTitle])).toEqual([["pledge_start:500", 1000, "Tier 3"]]);
    expect(stored.unlockedContent.map((row) => [row.postId, row.source])).toEqual([["hook-post", "SYNC"]]);
    // As the /api layer shows it (spec `pledge_history`).
    expect(await pledgeHistoryOf(user.id)).toEqual([
      { pledgeId: "pledge_start:500", amount_cents: 1000, date: "2024-05-01T00:00:00.000Z", tier_title: "Tier 3", tier_id: "21786318", payment_status: "Paid" },
    ]);

    // A downgrade arrives: the tier follows, the early-supporter unlock stays.
    const downgrade = memberWebhookBody(member({ tierIds: ["8824971"], lastChargeDate: "2024-06-01T00:00:00Z" }), TIERS);
    expect((await deliver("members:pledge:update", downgrade)).status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).currentTierId).toBe("8824971");
    expect(await db.unlockedContent.count({ where: { userId: user.id } })).toBe(1);

    // The pledge is deleted: no current tier any more.
    const deleted = memberWebhookBody(member({ patronStatus: "former_patron", tierIds: [], lastChargeDate: "2024-06-01T00:00:00Z" }), TIERS);
    expect((await deliver("members:pledge:delete", deleted)).status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).currentTierId).toBeNull();
  });

  it("stores the tiers a member holds with the platform's title and price; a new tier is neither paid nor voting", async () => {
    // Migration 0030 holds the product's known tiers with placeholder titles.
    expect(await db.tier.findUnique({ where: { id: "8825009" } })).toMatchObject({ isPaid: true, canVote: true, subscribeLabel: "Tier 2" });
    await db.tier.update({ where: { id: "21786318" }, data: { title: "Tier 21786318", amountCents: null } });
    const newTier: FakeTier = { id: "99887766", title: "Patron Deluxe", amountCents: 4200 };
    await createTestUser({ patreonId: "pu-tiers" });
    const known = memberWebhookBody(member({ patreonUserId: "pu-tiers", memberId: "m-tiers", tierIds: ["21786318"] }), TIERS);
    expect((await deliver("members:pledge:create", known)).status).toBe(200);
    expect(await db.tier.findUniqueOrThrow({ where: { id: "21786318" } })).toMatchObject({ title: "Tier 3", amountCents: 1000, isPaid: true, canVote: true });
    const unknown = memberWebhookBody(
      member({ patreonUserId: "pu-tiers", memberId: "m-tiers", tierIds: ["99887766"], lastChargeDate: "2030-01-01T00:00:00Z" }),
      [...TIERS, newTier],
    );
    expect((await deliver("members:pledge:update", unknown)).status).toBe(200);
    expect(await db.tier.findUniqueOrThrow({ where: { id: "99887766" } })).toMatchObject({
      title: "Patron Deluxe",
      amountCents: 4200,
      isPaid: false,
      canVote: false,
      subscribeLabel: null,
    });
    expect((await db.user.findUniqueOrThrow({ where: { patreonId: "pu-tiers" } })).currentTierId).toBe("99887766");
  });

  it("refuses a forged or unsigned delivery with 401 and stores nothing", async () => {
    const user = await createTestUser({ patreonId: "pu-forged" });
    const body = memberWebhookBody(member({ patreonUserId: "pu-forged", tierIds: ["21786318"] }), TIERS);
    const forged = await deliver("members:create", body, signPatreonWebhook(body, "someone-elses-secret"));
    expect(forged.status).toBe(401);
    expect(await readJsonBody(forged)).toEqual({ error: "Invalid signature." });
    // Signed, then tampered with: the signature no longer matches the raw body.
    const tampered = await deliver("members:create", body.replace("active_patron", "active_patron "), signPatreonWebhook(body, SECRET));
    expect(tampered.status).toBe(401);
    const unsigned = await callRoute(patreonWebhook, { method: "POST", body, headers: { "X-Patreon-Event": "members:create" } });
    expect(unsigned.status).toBe(401);
    const garbage = await deliver("members:create", body, "not-hex");
    expect(garbage.status).toBe(401);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).currentTierId).toBeNull();
  });

  it("acknowledges members it does not know and rejects bodies that are not member documents", async () => {
    const unknown = await deliver("members:create", memberWebhookBody(member({ patreonUserId: "pu-nobody" }), TIERS));
    expect(unknown.status).toBe(200);
    expect(await readJsonBody(unknown)).toEqual({ ok: true, matched: false });
    const notJson = await deliver("members:create", "{oops");
    expect(notJson.status).toBe(400);
    const notMember = await deliver("members:create", JSON.stringify({ data: { type: "campaign", id: "1" } }));
    expect(notMember.status).toBe(400);
  });

  // A captured signed body replayed later, or sent again under another
  // (unsigned) X-Patreon-Event, must not change the membership.
  it("the outcome follows the signed body, not the event header", async () => {
    const user = await createTestUser({ patreonId: "pu-flip" });
    const active = memberWebhookBody(member({ patreonUserId: "pu-flip", tierIds: ["21786318"], lastChargeDate: "2024-07-01T00:00:00Z" }), TIERS);
    // The same active body announced as a delete: the member still has a pledge.
    expect(await readJsonBody(await deliver("members:pledge:delete", active))).toEqual({ ok: true, matched: true });
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).currentTierId).toBe("21786318");
  });

  it("ignores deliveries older than the state already stored, and never revives an ended pledge", async () => {
    const user = await createTestUser({ patreonId: "pu-replay" });
    const july = memberWebhookBody(member({ patreonUserId: "pu-replay", tierIds: ["21786318"], lastChargeDate: "2024-07-01T00:00:00Z" }), TIERS);
    const august = memberWebhookBody(member({ patreonUserId: "pu-replay", tierIds: ["8824971"], lastChargeDate: "2024-08-01T00:00:00Z" }), TIERS);
    const ended = memberWebhookBody(
      member({ patreonUserId: "pu-replay", patronStatus: "former_patron", tierIds: [], lastChargeDate: "2024-08-01T00:00:00Z" }),
      TIERS,
    );
    const tier = async () => (await db.user.findUniqueOrThrow({ where: { id: user.id } })).currentTierId;

    await deliver("members:pledge:create", july);
    await deliver("members:pledge:update", august);
    expect(await tier()).toBe("8824971");
    // July's delivery captured and replayed: older than August, ignored.
    expect(await readJsonBody(await deliver("members:pledge:update", july))).toEqual({ ok: true, ignored: "stale" });
    expect(await tier()).toBe("8824971");
    // The pledge ends (same last charge); August's active body replayed cannot bring it back.
    await deliver("members:pledge:delete", ended);
    expect(await tier()).toBeNull();
    expect(await readJsonBody(await deliver("members:pledge:update", august))).toEqual({ ok: true, ignored: "stale" });
    expect(await readJsonBody(await deliver("members:update", july))).toEqual({ ok: true, ignored: "stale" });
    expect(await tier()).toBeNull();
    // A body that carries no date at all cannot be ordered after a dated state: ignored.
    const undated = memberWebhookBody(member({ patreonUserId: "pu-replay", tierIds: ["21786318"] }), TIERS);
    expect(await readJsonBody(await deliver("members:create", undated))).toEqual({ ok: true, ignored: "stale" });
    expect(await tier()).toBeNull();
  });

  it("a pending charge gives no tier until a delivery reports it paid; a late pending one cannot take it back", async () => {
    const user = await createTestUser({ patreonId: "pu-pending" });
    const at = { patreonUserId: "pu-pending", tierIds: ["21786318"], lastChargeDate: "2024-09-01T00:00:00Z" };
    const pending = memberWebhookBody(member({ ...at, lastChargeStatus: "Pending" }), TIERS);
    const paid = memberWebhookBody(member({ ...at, lastChargeStatus: "Paid" }), TIERS);
    const declined = memberWebhookBody(member({ ...at, lastChargeStatus: "Declined" }), TIERS);
    const tier = async () => (await db.user.findUniqueOrThrow({ where: { id: user.id } })).currentTierId;

    expect(await readJsonBody(await deliver("members:pledge:create", pending))).toEqual({ ok: true, matched: true });
    expect(await tier()).toBeNull();
    // The same charge, now paid: the tier comes.
    expect(await readJsonBody(await deliver("members:update", paid))).toEqual({ ok: true, matched: true });
    expect(await tier()).toBe("21786318");
    // The pending delivery retried late (or replayed) is older news.
    expect(await readJsonBody(await deliver("members:pledge:create", pending))).toEqual({ ok: true, ignored: "stale" });
    expect(await tier()).toBe("21786318");
    expect(await db.patreonMemberState.findUniqueOrThrow({ where: { patreonUserId: "pu-pending" } })).toMatchObject({ active: true, chargePending: false });
    // A charge declined after all ends it, and nothing of that instant brings it back.
    expect(await readJsonBody(await deliver("members:update", declined))).toEqual({ ok: true, matched: true });
    expect(await tier()).toBeNull();
    expect(await readJsonBody(await deliver("members:update", paid))).toEqual({ ok: true, ignored: "stale" });
    expect(await readJsonBody(await deliver("members:update", pending))).toEqual({ ok: true, ignored: "stale" });
    expect(await tier()).toBeNull();
  });
});
