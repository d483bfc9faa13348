// "My downloads" (records, the retention rule and its pruning) and "Updates for you" (owned
// posts behind their current version, newest update first), also with a big library.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { renderContent } from "~/models/content.server";
import { listMyUpdates, pruneOldDownloads } from "~/models/my-library.server";
import * as downloadsPage from "~/routes/account.downloads";
import * as updatesPage from "~/routes/account.updates";
import { callRoute, createTestUser, queriesDuring, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";
import { seedUpdatesLibrary } from "./updates-seed";

const DAY = 86_400_000;

describe("My downloads", () => {
  it("lists the records with version, date and leak-trace number, and states the rule", async () => {
    await createTiers();
    const user = await createTestUser({ currentTierId: TIER_2 });
    const post = await createPost({ tiers: [TIER_2], title: "Listed post" });
    await db.download.create({ data: { userId: user.id, postId: post.id, version: "V1.3" } });
    const response = await callRoute(downloadsPage, { path: "/account/downloads", cookie: await sessionCookie(user.id) });
    const data = (await response.json()) as { downloads: { postTitle: string; version: string; leakTraceNumber: number }[]; retentionDays: number };
    expect(data.retentionDays).toBe(730);
    expect(data.downloads).toEqual([expect.objectContaining({ postTitle: "Listed post", version: "V1.3", leakTraceNumber: user.number })]);
  });

  it("the privacy page states the same retention", async () => {
    expect(await renderContent("privacy")).toContain("Download records are kept for 730 days");
  });

  it("prunes records older than the retention and keeps the rest", async () => {
    const user = await createTestUser();
    const post = await createPost({ paid: false });
    const now = new Date();
    await db.download.createMany({
      data: [731, 729, 1].map((days, index) => ({
        id: `prune-${index}`,
        userId: user.id,
        postId: post.id,
        version: "V1.0",
        createdAt: new Date(now.getTime() - days * DAY),
      })),
    });
    expect(await pruneOldDownloads(now, 730)).toBe(1);
    expect((await db.download.findMany({ where: { userId: user.id }, orderBy: { id: "asc" } })).map((row) => row.id)).toEqual(["prune-1", "prune-2"]);
  });
});

describe("Updates for you", () => {
  it("shows owned posts whose downloaded version is behind, most recently updated first", async () => {
    await createTiers();
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const hour = 3600_000;
    const older = await createPost({ tiers: [TIER_2], version: "V1.2", title: "Older update" });
    const newer = await createPost({ tiers: [TIER_2], version: "V2.0", title: "Newer update" });
    const current = await createPost({ tiers: [TIER_2], version: "V1.0", title: "Up to date" });
    const locked = await createPost({ tiers: [TIER_1], version: "V3.0", title: "Not owned any more" });
    await db.post.update({ where: { id: older.id }, data: { lastUpdated: new Date(Date.now() - 5 * hour) } });
    await db.post.update({ where: { id: newer.id }, data: { lastUpdated: new Date(Date.now() - hour) } });
    for (const post of [older, newer, current, locked]) await db.download.create({ data: { userId: user.id, postId: post.id, version: "V1.0" } });
    const response = await callRoute(updatesPage, { path: "/account/updates", cookie: await sessionCookie(user.id) });
    const data = (await response.json()) as { updates: { title: string; fromVersion: string; toVersion: string }[] };
    expect(data.updates).toEqual([
      expect.objectContaining({ title: "Newer update", fromVersion: "V1.0", toVersion: "V2.0" }),
      expect.objectContaining({ title: "Older update", fromVersion: "V1.0", toVersion: "V1.2" }),
    ]);
  });

  it("reads 1,000 posts and 10,000 download records in the same few queries", async () => {
    await createTiers();
    const user = await createTestUser({ currentTierId: TIER_2 });
    await db.download.deleteMany();
    await seedUpdatesLibrary(db, user.id);
    const first = await listMyUpdates(user);
    // Owned: free posts and Tier 2 posts (g even); behind: latest downloaded version differs.
    expect(first.length).toBeGreaterThan(100);
    expect(first.every((update) => update.fromVersion !== update.toVersion)).toBe(true);
    // The viewer's facts, the listing when its kept copy is stale, and the variants chosen last time:
    // never a query per post or per download, however big the library. Its speed is measured by
    // `npm run bench` (bench/updates.ts).
    const { queries } = await queriesDuring("", () => listMyUpdates(user));
    expect(queries.length).toBeLessThanOrEqual(3);
  });
});
