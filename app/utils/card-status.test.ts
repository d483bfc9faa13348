import { describe, expect, it } from "vitest";
import { cardStatusWords, describeCardAccess, fanMissWords } from "./card-status";
import type { AccessExplanation } from "./entitlement";

const titles = new Map([
  ["8825009", "Tier 2"],
  ["8824971", "Tier 1"],
]);

describe("cardStatusWords", () => {
  it("says why an owned post is the viewer's, in a few words", () => {
    expect(cardStatusWords({ reason: "current-tier", tierId: "8825009" }, titles)).toBe("Included in your Tier 2 membership");
    expect(cardStatusWords({ reason: "first-tier", tierId: "8824971", publishedAt: new Date("2026-03-03T00:00:00Z") }, titles)).toBe(
      "Early supporter on Tier 1",
    );
    expect(
      cardStatusWords(
        { reason: "purchase", code: "D139595", purchase: { code: "D139595", email: "buyer@example.com", purchasedAt: new Date("2025-11-20T23:30:00Z") } },
        titles,
      ),
    ).toBe("Bought on 20 Nov 2025 with buyer@example.com");
    expect(cardStatusWords({ reason: "purchase", code: "D139595", purchase: null }, titles)).toBe("Bought in the shop");
    expect(cardStatusWords({ reason: "unlocked-content", source: "ADMIN", pledgedTierId: null, publishedAt: null }, titles)).toBe("Granted by the creator");
    expect(cardStatusWords({ reason: "unlocked-content", source: "SYNC", pledgedTierId: "8824971", publishedAt: null }, titles)).toBe(
      "Early supporter on Tier 1",
    );
    expect(cardStatusWords({ reason: "admin" }, titles)).toBe("Admin access");
    expect(cardStatusWords({ reason: "current-tier", tierId: "999" }, titles)).toBe("Included in your Unknown Tier membership");
  });
});

describe("fanMissWords", () => {
  it("leaves the shop's item code out of what fans read", () => {
    expect(fanMissWords({ kind: "not-bought", code: "D139595" }, titles)).toBe("Not bought in the shop");
    expect(fanMissWords({ kind: "tier", currentTierId: "8824971", needs: ["8825009"] }, titles)).toBe("Current tier Tier 1; this post needs Tier 2");
  });
});

describe("describeCardAccess", () => {
  const locked: AccessExplanation = {
    allowed: false,
    grant: null,
    misses: [{ kind: "not-bought", code: "D139595" }],
    unlocks: { tierIds: ["8825009"], shopItem: "D139595" },
    upcoming: null,
  };

  it("gives a locked card no status and near misses without item codes", () => {
    const card = describeCardAccess(locked, titles);
    expect(card.status).toBeNull();
    expect(card.misses).toEqual(["Not bought in the shop"]);
    expect(card.shopItem).toBe("D139595");
  });

  it("gives an owned card its status beside the full summary", () => {
    const card = describeCardAccess(
      { allowed: true, grant: { reason: "current-tier", tierId: "8825009" }, misses: [], unlocks: { tierIds: [], shopItem: null }, upcoming: null },
      titles,
    );
    expect(card.status).toBe("Included in your Tier 2 membership");
    expect(card.summary).toBe("Your Tier 2 membership");
  });
});
