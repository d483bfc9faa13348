// Insights models against known fixtures: exact counts per UTC bucket (day boundaries included),
// rollups that agree with the raw rows, the access source recorded at download time and the
// classification of older rows, shop revenue per transaction, and the CSV export.
import { readFileSync } from "node:fs";
import path from "node:path";
import { db } from "~/db.server";
import { parseKofiWebhook } from "~/integrations/kofi.server";
import { recordDownload } from "~/models/download.server";
import { downloadsPerDay, topPosts } from "~/models/insights/downloads.server";
import { likesPerIdea } from "~/models/insights/inspiration.server";
import { refreshDownloadRollups } from "~/models/insights/rollup.server";
import { shopByMonth } from "~/models/insights/shop.server";
import { supportersByMonth } from "~/models/insights/supporters.server";
import { importPurchasesCsv, recordKofiWebhook } from "~/models/purchase.server";
import { parseInsightsRange, type InsightsRange } from "~/utils/insights-schemas";
import { kofiPayload } from "./fakes/kofi";
import { callRoute, createTestUser, sessionCookie } from "./helpers";

const at = (iso: string) => new Date(iso);
const custom = (from: string, to: string): InsightsRange => {
  const parsed = parseInsightsRange(new URLSearchParams({ range: "custom", from, to }));
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.range;
};

let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  alice = (await createTestUser({ fullName: "Alice" })).id;
  bob = (await createTestUser({ fullName: "Bob" })).id;
  carol = (await createTestUser({ fullName: "Carol" })).id;
  await db.post.createMany({
    data: [
      { id: "p-free", title: "Free chair", paidContent: false, version: "V2" },
      { id: "p-paid", title: "Paid table", version: "V3", kofiId: "shop-table" },
    ],
  });
  // Three days around two UTC midnights; 23:59:59.999 belongs to the day before.
  await db.download.createMany({
    data: [
      { userId: alice, postId: "p-free", version: "V1", createdAt: at("2025-03-01T23:59:59.999Z"), accessSource: "FREE" },
      { userId: alice, postId: "p-paid", version: "V3", createdAt: at("2025-03-02T00:00:00.000Z"), accessSource: "TIER" },
      { userId: alice, postId: "p-free", version: "V2", createdAt: at("2025-03-02T12:00:00.000Z"), accessSource: "FREE" },
      { userId: bob, postId: "p-paid", version: "V2", createdAt: at("2025-03-02T23:59:59.999Z"), accessSource: "PURCHASE" },
      { userId: carol, postId: "p-paid", version: "V3", createdAt: at("2025-03-03T00:00:00.000Z"), accessSource: "GRANT" },
      { userId: bob, postId: "p-paid", version: "V1", createdAt: at("2025-02-01T10:00:00.000Z"), accessSource: "EARLY_SUPPORTER" },
    ],
  });
});

describe("downloads per day", () => {
  it("counts each UTC day exactly, by access source and unique users", async () => {
    const days = await downloadsPerDay(custom("2025-03-01", "2025-03-04"));
    expect(days.map((day) => [day.day, day.total, day.uniqueUsers])).toEqual([
      ["2025-03-01", 1, 1],
      ["2025-03-02", 3, 2],
      ["2025-03-03", 1, 1],
      ["2025-03-04", 0, 0],
    ]);
    expect(days[1]!.bySource).toMatchObject({ FREE: 1, TIER: 1, PURCHASE: 1, GRANT: 0 });
    expect(days[2]!.bySource).toMatchObject({ GRANT: 1 });
  });

  it("ranks top posts in the range, with downloads per day and version adoption over all time", async () => {
    const { days, posts } = await topPosts(custom("2025-03-01", "2025-03-03"));
    expect(days).toEqual(["2025-03-01", "2025-03-02", "2025-03-03"]);
    expect(posts.map((post) => [post.rank, post.postId, post.downloads, post.perDay])).toEqual([
      [1, "p-paid", 3, [0, 2, 1]],
      [2, "p-free", 2, [1, 1, 0]],
    ]);
    // p-paid owners: alice (V3), bob (V1, V2), carol (V3); current is V3.
    expect(posts[0]).toMatchObject({ owners: 3, ownersOnCurrentVersion: 2 });
    expect(posts[1]).toMatchObject({ owners: 1, ownersOnCurrentVersion: 1 });
  });

  it("rollups agree with the raw rows, whole or split at any day", async () => {
    const range = custom("2025-01-30", "2025-03-05");
    const raw = { days: await downloadsPerDay(range), top: await topPosts(range) };
    const run = await refreshDownloadRollups(at("2025-03-03T08:00:00Z"));
    expect(run).toMatchObject({ skipped: false, full: true, through: "2025-03-03" });
    expect(await db.downloadDaySource.count()).toBeGreaterThan(0);
    expect(await downloadsPerDay(range)).toEqual(raw.days);
    expect(await topPosts(range)).toEqual(raw.top);
    // The rollup tables on their own hold exactly the raw counts of the days they cover.
    const [rolled] = await db.$queryRaw<{ n: bigint }[]>`SELECT sum(downloads)::bigint AS n FROM download_day_sources`;
    expect(Number(rolled!.n)).toBe(await db.download.count({ where: { createdAt: { lt: at("2025-03-03T00:00:00Z") } } }));
    // A later incremental run re-rolls recent days only and still agrees.
    await db.download.create({ data: { userId: carol, postId: "p-free", version: "V2", createdAt: at("2025-03-03T09:00:00Z"), accessSource: "FREE" } });
    const incremental = await refreshDownloadRollups(at("2025-03-04T07:00:00Z"));
    expect(incremental).toMatchObject({ full: false, from: "2025-03-01", through: "2025-03-04" });
    const rawAgain = await db.$queryRaw<{ day: string; n: number }[]>`
      SELECT to_char(created_at::date, 'YYYY-MM-DD') AS day, count(*)::int AS n FROM downloads GROUP BY 1 ORDER BY 1`;
    const rollup = await db.$queryRaw<{ day: string; n: number }[]>`
      SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(downloads)::int AS n FROM download_day_sources GROUP BY 1 ORDER BY 1`;
    expect(rollup).toEqual(rawAgain.filter((row) => row.day < "2025-03-04"));
    expect((await downloadsPerDay(range)).find((day) => day.day === "2025-03-03")).toMatchObject({ total: 2, uniqueUsers: 1 });
    // Owners too: carol's first download of p-free came after the first cut.
    const afterJob = { days: await downloadsPerDay(range), top: await topPosts(range) };
    expect(afterJob.top.posts.find((post) => post.postId === "p-free")).toMatchObject({ owners: 2, ownersOnCurrentVersion: 2 });
    await db.insightsRollupState.deleteMany();
    expect({ days: await downloadsPerDay(range), top: await topPosts(range) }).toEqual(afterJob);
  });
});

describe("access source", () => {
  it("is recorded from the unlock reason at download time", async () => {
    await db.post.create({ data: { id: "p-grant", title: "Granted", version: "V1" } });
    await db.unlockedContent.create({ data: { userId: bob, postId: "p-grant", source: "SYNC" } });
    await recordDownload(bob, "p-grant", "V1", at("2025-04-01T00:00:00Z"), "unlocked-content");
    await recordDownload(alice, "p-paid", "V3", at("2025-04-01T00:00:00Z"), "purchase");
    await recordDownload(carol, "p-paid", "V3", at("2025-04-01T00:00:00Z"));
    const rows = await db.download.findMany({ where: { createdAt: at("2025-04-01T00:00:00Z") }, orderBy: { postId: "asc" } });
    expect(rows.map((row) => [row.userId, row.accessSource])).toEqual(expect.arrayContaining([[bob, "EARLY_SUPPORTER"], [alice, "PURCHASE"], [carol, "UNKNOWN"]]));
  });

  it("is classified for rows recorded before it existed (migration 0007)", async () => {
    const migration = readFileSync(path.resolve(import.meta.dirname, "../prisma/migrations/0007_insights/migration.sql"), "utf8");
    const backfill = migration.slice(migration.indexOf('UPDATE "downloads"'));
    const admin = await createTestUser({ isAdmin: true });
    const supporter = await createTestUser();
    await db.tier.create({ data: { id: "t-gold", title: "Gold" } });
    await db.post.create({ data: { id: "p-tier", title: "Tier post", tiers: { create: [{ tierId: "t-gold", kind: "CURRENT" }] } } });
    await db.pledgeEvent.create({ data: { id: "ev-1", userId: supporter.id, type: "pledge_start", amountCents: 500, date: at("2025-05-01T00:00:00Z"), tierId: "t-gold", paymentStatus: "Paid" } });
    const old = [
      { id: "old-admin", userId: admin.id, postId: "p-tier" },
      { id: "old-free", userId: supporter.id, postId: "p-free" },
      { id: "old-tier", userId: supporter.id, postId: "p-tier", createdAt: at("2025-05-02T00:00:00Z") },
      { id: "old-before-pledge", userId: supporter.id, postId: "p-tier", createdAt: at("2025-04-30T00:00:00Z") },
      { id: "old-grant", userId: carol, postId: "p-grant" },
      { id: "old-grant-later", userId: bob, postId: "p-grant" },
    ];
    await db.unlockedContent.create({ data: { userId: carol, postId: "p-grant", source: "ADMIN", createdAt: at("2025-01-01T00:00:00Z") } });
    await db.download.createMany({ data: old.map((row) => ({ version: "V1", createdAt: at("2025-06-01T00:00:00Z"), ...row })) });
    // Rolled back afterwards: the backfill reclassifies every row, the other tests' fixtures too.
    const rollback = new Error("rollback");
    let classified: { id: string; accessSource: string }[] = [];
    await db
      .$transaction(async (tx) => {
        await tx.$executeRawUnsafe(backfill);
        classified = await tx.download.findMany({ where: { id: { in: old.map((row) => row.id) } }, select: { id: true, accessSource: true } });
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
    expect(Object.fromEntries(classified.map((row) => [row.id, row.accessSource]))).toEqual({
      "old-admin": "ADMIN",
      "old-free": "FREE",
      "old-tier": "TIER",
      "old-before-pledge": "UNKNOWN",
      "old-grant": "GRANT",
      // Bob's unlock is dated after this download: it cannot have been the reason.
      "old-grant-later": "UNKNOWN",
    });
  });
});

describe("supporters by tier", () => {
  it("counts active pledges at each month's end, with new and lost supporters", async () => {
    const [u1, u2, u3] = [await createTestUser(), await createTestUser(), await createTestUser()];
    await db.tier.createMany({ data: [{ id: "t-bronze", title: "Bronze" }, { id: "t-silver", title: "Silver" }] });
    const event = (id: string, userId: string, type: string, date: string, tierId: string | null, paymentStatus: string | null = "Paid") => ({ id, userId, type, amountCents: 300, date: at(date), tierId, paymentStatus });
    await db.pledgeEvent.createMany({
      data: [
        event("s1", u1.id, "pledge_start", "2024-01-10T00:00:00Z", "t-bronze"),
        event("s2", u1.id, "pledge_upgrade", "2024-02-05T00:00:00Z", "t-silver"),
        event("s3", u2.id, "pledge_start", "2024-01-31T23:59:59.999Z", "t-bronze"),
        event("s4", u2.id, "pledge_delete", "2024-03-01T00:00:00Z", "t-bronze", null),
        event("s5", u3.id, "pledge_start", "2024-02-01T00:00:00Z", "t-silver", "Declined"),
      ],
    });
    const { tiers, months } = await supportersByMonth(custom("2024-01-01", "2024-03-31"));
    expect(tiers.map((tier) => tier.title)).toEqual(["Bronze", "Silver"]);
    expect(months.map((month) => [month.month, month.byTier, month.gained, month.lost])).toEqual([
      ["2024-01", [2, 0], 2, 0],
      ["2024-02", [1, 1], 0, 0],
      ["2024-03", [0, 1], 0, 1],
    ]);
  });
});

describe("shop", () => {
  it("stores the order amount from the webhook and the CSV, and counts each order's revenue once", async () => {
    const payload = kofiPayload({ timestamp: "2025-03-31T23:59:59Z", amount: "12.50", currency: "eur", kofi_transaction_id: "TX-W", shop_items: [{ direct_link_code: "a1" }, { direct_link_code: "a2" }] });
    await recordKofiWebhook(parseKofiWebhook(JSON.stringify(payload)));
    expect(await db.purchase.findMany({ where: { transactionId: "TX-W" }, select: { amountCents: true, currency: true } })).toEqual([
      { amountCents: 1250, currency: "EUR" },
      { amountCents: 1250, currency: "EUR" },
    ]);
    const header = "DateTime (UTC),From,Message,Item,Received,Given,Currency,TransactionType,TransactionId,Reference,SalesTax,BuyerEmail";
    await importPurchasesCsv(null, `${header}\n04/01/2025 00:00,Bob,,shop-table,5.00,5.00,USD,Shop Order,TX-C,,0,bob@example.com\n`, "export.csv");
    await db.purchase.create({ data: { email: "old@example.com", kofiItemCode: "x", transactionId: "TX-OLD", source: "ADMIN", purchasedAt: at("2025-04-02T00:00:00Z") } });
    const { currencies, months } = await shopByMonth(custom("2025-03-01", "2025-04-30"));
    expect(currencies).toEqual(["EUR", "USD"]);
    expect(months).toEqual([
      { month: "2025-03", purchases: 2, orders: 1, ordersWithoutAmount: 0, revenueCents: { EUR: 1250, USD: 0 } },
      { month: "2025-04", purchases: 2, orders: 2, ordersWithoutAmount: 1, revenueCents: { EUR: 0, USD: 500 } },
    ]);
  });
});

describe("inspiration vote", () => {
  it("counts likes per idea over the round's days", async () => {
    const idea = await db.inspirationPanel.create({ data: { imageUrl: "/media/a.jpg", title: "Treehouse" } });
    const other = await db.inspirationPanel.create({ data: { imageUrl: "/media/b.jpg", title: "Boat" } });
    await db.inspirationLike.createMany({
      data: [
        { userId: alice, panelId: idea.id, kind: "LIKE", createdAt: at("2025-05-01T23:59:59Z") },
        { userId: alice, panelId: idea.id, kind: "PATREON", createdAt: at("2025-05-02T00:00:00Z") },
        { userId: bob, panelId: idea.id, kind: "LIKE", createdAt: at("2025-05-03T00:00:00Z") },
      ],
    });
    const round = await likesPerIdea();
    expect(round.days).toEqual(["2025-05-01", "2025-05-02", "2025-05-03"]);
    expect(round.ideas.map((entry) => [entry.title, entry.likes, entry.supporterLikes, entry.cumulative])).toEqual([
      ["Treehouse", 2, 1, [1, 2, 3]],
      ["Boat", 0, 0, [0, 0, 0]],
    ]);
    expect(other.id).toBeTruthy();
  });
});

describe("pages and exports", () => {
  it("exports a chart as CSV through the chart's model function", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const route = await import("~/routes/admin_.insights.$chart[.]csv");
    const response = await callRoute(route, {
      path: "/admin/insights/downloads.csv?range=custom&from=2025-03-01&to=2025-03-02",
      params: { chart: "downloads" },
      cookie: await sessionCookie(admin.id),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/csv");
    const lines = (await response.text()).replace(/^\uFEFF/, "").trim().split("\n");
    expect(lines[0]).toBe("Day (UTC),Free,Tier,Early supporter,Purchase,Grant,Admin,Unknown (before sources were recorded),Total downloads,Unique users");
    expect(lines.slice(1)).toEqual(["2025-03-01,1,0,0,0,0,0,0,1,1", "2025-03-02,1,1,0,1,0,0,0,3,2"]);
    const bad = await callRoute(route, { path: "/admin/insights/downloads.csv?range=custom&from=2025-03-05&to=2025-03-01", params: { chart: "downloads" }, cookie: await sessionCookie(admin.id) });
    expect(bad.status).toBe(400);
    const page = await callRoute(await import("~/routes/admin_.insights"), { path: "/admin/insights?range=custom&from=2025-03-01&to=2025-03-03", cookie: await sessionCookie(admin.id) });
    expect(page.status).toBe(200);
  });

  it("refuses everyone but effective admins with 403, page and every export", async () => {
    const { INSIGHTS_CHARTS } = await import("~/utils/insights-schemas");
    const restrictedAdmin = await createTestUser({ isAdmin: true, restricted: true });
    const fan = await createTestUser();
    const csvRoute = await import("~/routes/admin_.insights.$chart[.]csv");
    const pageRoute = await import("~/routes/admin_.insights");
    for (const cookie of [undefined, await sessionCookie(fan.id), await sessionCookie(restrictedAdmin.id)]) {
      expect((await callRoute(pageRoute, { path: "/admin/insights", cookie })).status).toBe(403);
      for (const chart of INSIGHTS_CHARTS) expect((await callRoute(csvRoute, { path: `/admin/insights/${chart}.csv`, params: { chart }, cookie })).status).toBe(403);
    }
  });
});
