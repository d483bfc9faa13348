// Guests' free downloads: counted once per signed address (post, version, time; no user), and
// counted by Insights as Free downloads and in Top posts, from the raw rows and the rollups alike.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { LocalStorage, setStorageForTests } from "~/integrations/storage.server";
import { recordGuestDownload } from "~/models/download.server";
import { insightsTable } from "~/models/insights/charts.server";
import { downloadsPerDay, topPosts } from "~/models/insights/downloads.server";
import { refreshInsightsRollups } from "~/models/insights/rollup.server";
import * as freeRoute from "~/routes/api.download.freedownload.$postId";
import * as signedRoute from "~/routes/download.$postId";
import { parseInsightsRange, type InsightsRange } from "~/utils/insights-schemas";
import { appDatabaseSettled, callRoute, readJsonBody } from "./helpers";
import { createPost, createTiers } from "./library-fixtures";

const localRoot = mkdtempSync(path.join(os.tmpdir(), "clib-guest-dl-"));

const custom = (from: string, to: string): InsightsRange => {
  const parsed = parseInsightsRange(new URLSearchParams({ range: "custom", from, to }));
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.range;
};

beforeAll(async () => {
  setStorageForTests(new LocalStorage(localRoot));
  await createTiers();
});

afterAll(() => {
  setStorageForTests(undefined);
  rmSync(localRoot, { recursive: true, force: true });
});

async function guestAddress(postId: string): Promise<URL> {
  const response = await callRoute(freeRoute, { params: { postId } });
  expect(response.status).toBe(200);
  return new URL((await readJsonBody<{ downloadUrl: string }>(response)).downloadUrl);
}

async function follow(url: URL, headers: Record<string, string> = {}) {
  const response = await callRoute(signedRoute, { path: `${url.pathname}${url.search}`, params: { postId: url.pathname.split("/").pop()! }, headers });
  await response.arrayBuffer();
  await appDatabaseSettled();
  return response;
}

describe("a guest's free download", () => {
  it("is recorded without a user once its last byte is sent, once per signed address", async () => {
    const post = await createPost({ paid: false, version: "V2.0", fileSize: 10_000 });
    const address = await guestAddress(post.id);
    expect((await follow(address)).status).toBe(200);
    const rows = await db.$queryRaw<{ post_id: string; version: string }[]>`SELECT post_id, version FROM guest_downloads WHERE post_id = ${post.id}`;
    expect(rows).toEqual([{ post_id: post.id, version: "V2.0" }]);
    // The same address again, and its last byte alone: still one download.
    expect((await follow(address)).status).toBe(200);
    expect((await follow(address, { Range: "bytes=-1" })).status).toBe(206);
    const [again] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM guest_downloads WHERE post_id = ${post.id}`;
    expect(again!.n).toBe(1);
    // A new address (another download) counts again; no account row was ever made.
    await follow(await guestAddress(post.id));
    const [twice] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM guest_downloads WHERE post_id = ${post.id}`;
    expect(twice!.n).toBe(2);
    expect(await db.download.count({ where: { postId: post.id } })).toBe(0);
  });

  it("is not recorded when the response stops before the last byte", async () => {
    const post = await createPost({ paid: false, fileSize: 10_000 });
    await follow(await guestAddress(post.id), { Range: "bytes=0-99" });
    const [rows] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM guest_downloads WHERE post_id = ${post.id}`;
    expect(rows!.n).toBe(0);
  });
});

describe("insights count guests' downloads", () => {
  it("as Free downloads and in Top posts, raw and rolled up, and in the CSV", async () => {
    const post = await createPost({ paid: false, title: "Guest favourite", version: "V1.0" });
    const at = (iso: string) => new Date(iso);
    await recordGuestDownload(post.id, "V1.0", "link-a", at("2024-05-01T00:00:00.000Z"));
    await recordGuestDownload(post.id, "V1.0", "link-b", at("2024-05-01T23:59:59.999Z"));
    await recordGuestDownload(post.id, "V1.0", "link-c", at("2024-05-03T10:00:00.000Z"));
    expect(await recordGuestDownload(post.id, "V1.0", "link-c", at("2024-05-03T11:00:00.000Z"))).toBe(false);
    const range = custom("2024-05-01", "2024-05-03");

    const check = async () => {
      const days = await downloadsPerDay(range);
      expect(days.map((day) => [day.day, day.bySource.FREE, day.total, day.uniqueUsers])).toEqual([
        ["2024-05-01", 2, 2, 0],
        ["2024-05-02", 0, 0, 0],
        ["2024-05-03", 1, 1, 0],
      ]);
      const top = await topPosts(range);
      expect(top.posts.map((entry) => [entry.postId, entry.downloads, entry.perDay, entry.owners])).toEqual([[post.id, 3, [2, 0, 1], 0]]);
      const csv = await insightsTable("downloads", range);
      const free = csv.columns.indexOf("Free");
      expect(csv.rows.map((row) => row[free])).toEqual([2, 0, 1]);
    };
    await check();
    // After the insights job, the same figures come from the rollups.
    await refreshInsightsRollups(at("2024-05-04T06:00:00Z"), { full: true });
    const [rolled] = await db.$queryRaw<{ n: number }[]>`SELECT coalesce(sum(downloads), 0)::int AS n FROM download_day_sources WHERE access_source = 'FREE'`;
    expect(rolled!.n).toBe(3);
    await check();
    // Deleting the post deletes its guest downloads and marks the rollups for the next run.
    await db.post.delete({ where: { id: post.id } });
    const marks = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM insights_changes WHERE source = 'downloads'`;
    expect(marks[0]!.n).toBeGreaterThan(0);
    await refreshInsightsRollups(at("2024-05-04T07:00:00Z"));
    expect((await downloadsPerDay(range)).map((day) => day.total)).toEqual([0, 0, 0]);
    await db.insightsRollupState.deleteMany();
  });
});
