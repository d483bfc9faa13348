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
import { refreshInsightsRollups } from "~/models/insights/rollup.server";
import { shopByMonth } from "~/models/insights/shop.server";
import { currentMembersByTier, supportersByMonth } from "~/models/insights/supporters.server";
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
    const run = await refreshInsightsRollups(at("2025-03-03T08:00:00Z"));
    expect(run).toMatchObject({ skipped: false, full: true, through: "2025-03-03" });
    expect(await db.downloadDaySource.count()).toBeGreaterThan(0);
    expect(await downloadsPerDay(range)).toEqual(raw.days);
    expect(await topPosts(range)).toEqual(raw.top);
    // The rollup tables on their own hold exactly the raw counts of the days they cover.
    const [rolled] = await db.$queryRaw<{ n: bigint }[]>`SELECT sum(downloads)::bigint AS n FROM download_day_sources`;
    expect(Number(rolled!.n)).toBe(await db.download.count({ where: { createdAt: { lt: at("2025-03-03T00:00:00Z") } } }));
    // A later incremental run re-rolls recent days only and still agrees.
    await db.download.create({ data: { userId: carol, postId: "p-free", version: "V2", createdAt: at("2025-03-03T09:00:00Z"), accessSource: "FREE" } });
    const incremental = await refreshInsightsRollups(at("2025-03-04T07:00:00Z"));
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
    expect(rows.map((row) => [row.userId, row.accessSource])).toEqual(
      expect.arrayContaining([
        [bob, "EARLY_SUPPORTER"],
        [alice, "PURCHASE"],
        [carol, "UNKNOWN"],
      ]),
    );
  });

  it("is classified for rows recorded before it existed (migration 0007)", async () => {
    const migration = readFileSync(path.resolve(import.meta.dirname, "../prisma/migrations/0007_insights/migration.sql"), "utf8");
    const backfill = migration.slice(migration.indexOf('UPDATE "downloads"'));
    const admin = await createTestUser({ isAdmin: true });
    const supporter = await createTestUser();
    await db.tier.create({ data: { id: "t-gold", title: "Gold" } });
    await db.post.create({ data: { id: "p-tier", title: "Tier post", tiers: { create: [{ tierId: "t-gold", kind: "CURRENT" }] } } });
    await db.pledgeEvent.create({
      data: {
        id: "ev-1",
        userId: supporter.id,
        type: "pledge_start",
        amountCents: 500,
        date: at("2025-05-01T00:00:00Z"),
        tierId: "t-gold",
        paymentStatus: "Paid",
      },
    });
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
    await db.tier.createMany({
      data: [
        { id: "t-bronze", title: "Bronze" },
        { id: "t-silver", title: "Silver" },
      ],
    });
    const event = (id: string, userId: string, type: string, date: string, tierId: string | null, paymentStatus: string | null = "Paid") => ({
      id,
      userId,
      type,
      amountCents: 300,
      date: at(date),
      tierId,
      paymentStatus,
    });
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

  it("counts the members per tier now from each account's current tier, whether or not its pledge history is known", async () => {
    await db.tier.createMany({
      data: [
        { id: "t-cheap", title: "Cheap", amountCents: 100 },
        { id: "t-dear", title: "Dear", amountCents: 900 },
      ],
    });
    const before = await currentMembersByTier();
    // No pledge events at all: the history chart cannot see these, the figure must.
    for (const currentTierId of ["t-dear", "t-cheap", "t-dear", "t-unlisted", null]) await createTestUser({ currentTierId });
    const after = await currentMembersByTier();
    const members = (result: typeof after, tierId: string) => result.tiers.find((tier) => tier.tierId === tierId)?.members ?? 0;
    expect(after.total - before.total).toBe(4);
    expect(["t-cheap", "t-dear", "t-unlisted"].map((tierId) => members(after, tierId) - members(before, tierId))).toEqual([1, 2, 1]);
    expect(after.tiers.find((tier) => tier.tierId === "t-unlisted")?.title).toBe("Unknown Tier (t-unlisted)");
    // Cheapest first; a tier the site does not list comes last.
    const order = after.tiers.map((tier) => tier.tierId);
    expect(order.indexOf("t-cheap")).toBeLessThan(order.indexOf("t-dear"));
    expect(order[order.length - 1]).toBe("t-unlisted");
    expect(after.total).toBe(after.tiers.reduce((sum, tier) => sum + tier.members, 0));
  });
});

describe("rollups against the raw rows, on a generated data set", () => {
  // Half a year of random downloads and pledge histories (seeded, so every run is the same),
  // with the edges put in on purpose: events and downloads at UTC midnights and a millisecond
  // before, a tier change in the middle of a month, two events of one account at the same
  // instant, events exactly at and after the job's moment, a tier no longer listed, pledges
  // without a tier, payments declined and pending, a hidden post, deleted accounts and a
  // deleted post. Every chart is compared with answers computed here from the raw rows.
  const T1 = at("2023-06-20T12:00:00.000Z");
  const T2 = at("2023-06-21T09:00:00.000Z");
  const T3 = at("2023-06-21T10:00:00.000Z");
  const RANGES = [
    ["2023-01-01", "2023-06-30"],
    ["2022-12-01", "2023-01-31"],
    ["2023-03-01", "2023-03-31"],
    ["2023-02-15", "2023-04-10"],
    ["2023-05-31", "2023-06-01"],
    ["2023-06-14", "2023-06-20"],
    ["2023-06-20", "2023-06-21"],
    ["2023-06-21", "2023-06-30"],
  ].map(([from, to]) => custom(from!, to!));

  const random = (() => {
    let seed = 17;
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  })();
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const START = at("2023-01-01T00:00:00Z").getTime();
  const END = at("2023-06-22T00:00:00Z").getTime();
  /** A random instant; one in five is a UTC midnight or the millisecond before one. */
  const someTime = () => {
    const time = START + Math.floor(random() * (END - START));
    if (random() >= 0.2) return new Date(time);
    const midnight = Math.floor(time / 86_400_000) * 86_400_000;
    return new Date(random() < 0.5 ? midnight : midnight - 1);
  };
  const users = Array.from({ length: 24 }, (_, index) => `g-u${String(index).padStart(2, "0")}`);
  let eventNumber = 0;
  const eventId = () => `g-e${String(eventNumber++).padStart(5, "0")}`;
  type NewEvent = {
    id: string;
    userId: string;
    type: string;
    amountCents: number;
    date: Date;
    tierId: string | null;
    tierTitle: string | null;
    paymentStatus: string | null;
  };
  const pledge = (userId: string, type: string, date: Date, tierId: string | null, paymentStatus: string | null = "Paid", id = eventId()): NewEvent => ({
    id,
    userId,
    type,
    amountCents: 500,
    date,
    tierId,
    tierTitle: tierId ? { "g-alpha": "G Alpha old", "g-beta": "G Beta", "g-gone": "G Gone" }[tierId]! : null,
    paymentStatus,
  });

  // ------------------------------------------------------------ answers from the raw rows
  type RawEvent = Awaited<ReturnType<typeof db.pledgeEvent.findMany>>[number];
  const isActive = (event: RawEvent) => event.type !== "pledge_delete" && (event.paymentStatus === null || event.paymentStatus.toLowerCase() === "paid");
  const byTime = (a: RawEvent, b: RawEvent) => a.date.getTime() - b.date.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const midnight = (day: string) => at(`${day}T00:00:00Z`).getTime();

  async function expectedSupporters(range: InsightsRange) {
    const { monthsOf } = await import("~/models/insights/months");
    const buckets = monthsOf(range);
    const known = new Map((await db.tier.findMany()).map((tier) => [tier.id, tier.title]));
    const histories = new Map<string, RawEvent[]>();
    for (const event of await db.pledgeEvent.findMany()) {
      if (event.date.getTime() >= midnight(range.to)) continue;
      histories.set(event.userId, [...(histories.get(event.userId) ?? []), event]);
    }
    const counts = new Map<string | null, number[]>();
    const titles = new Map<string | null, string | null>();
    const changes = new Map<string, { gained: number; lost: number }>();
    for (const history of histories.values()) {
      history.sort(byTime);
      for (const event of history.filter(isActive)) {
        counts.set(event.tierId, counts.get(event.tierId) ?? buckets.map(() => 0));
        const title = titles.get(event.tierId) ?? null;
        titles.set(event.tierId, event.tierTitle !== null && (title === null || event.tierTitle > title) ? event.tierTitle : title);
      }
      buckets.forEach((bucket, index) => {
        const latest = history.filter((event) => event.date.getTime() < midnight(bucket.end)).at(-1);
        if (latest && isActive(latest)) counts.get(latest.tierId)![index]! += 1;
      });
      history.forEach((event, index) => {
        if (event.date.getTime() < midnight(range.from)) return;
        const was = index > 0 && isActive(history[index - 1]!);
        const month = event.date.toISOString().slice(0, 7);
        const change = changes.get(month) ?? { gained: 0, lost: 0 };
        if (isActive(event) && !was) change.gained += 1;
        if (!isActive(event) && was) change.lost += 1;
        changes.set(month, change);
      });
    }
    const tiers = [...counts.keys()]
      .map((tierId) => ({ tierId, title: tierId ? (known.get(tierId) ?? titles.get(tierId) ?? "Unknown Tier") : "No tier" }))
      .filter(({ tierId }) => counts.get(tierId)!.some((count) => count > 0))
      .sort((a, b) => a.title.localeCompare(b.title) || String(a.tierId).localeCompare(String(b.tierId)));
    return {
      tiers,
      months: buckets.map((bucket, index) => {
        const byTier = tiers.map(({ tierId }) => counts.get(tierId)![index]!);
        return {
          ...bucket,
          byTier,
          total: byTier.reduce((sum, value) => sum + value, 0),
          gained: changes.get(bucket.month)?.gained ?? 0,
          lost: changes.get(bucket.month)?.lost ?? 0,
        };
      }),
    };
  }

  async function expectedDownloads(range: InsightsRange) {
    const { ACCESS_SOURCES } = await import("~/models/insights/downloads.server");
    const { daysOf } = await import("~/utils/insights-schemas");
    const rows = await db.download.findMany({ select: { userId: true, postId: true, version: true, createdAt: true, accessSource: true } });
    const posts = await db.post.findMany({ select: { id: true, title: true, version: true } });
    const days = daysOf(range);
    const inRange = rows.filter((row) => row.createdAt.getTime() >= midnight(range.from) && row.createdAt.getTime() < midnight(range.to));
    const dayOf = (row: (typeof rows)[number]) => row.createdAt.toISOString().slice(0, 10);
    const perDay = days.map((day) => {
      const today = inRange.filter((row) => dayOf(row) === day);
      const bySource = Object.fromEntries(ACCESS_SOURCES.map(({ key }) => [key, today.filter((row) => row.accessSource === key).length]));
      return { day, bySource, total: today.length, uniqueUsers: new Set(today.map((row) => row.userId)).size };
    });
    const ranked = posts
      .map((post) => ({ post, mine: inRange.filter((row) => row.postId === post.id) }))
      .filter(({ mine }) => mine.length > 0)
      .sort(
        (a, b) => b.mine.length - a.mine.length || (a.post.title < b.post.title ? -1 : a.post.title > b.post.title ? 1 : 0) || (a.post.id < b.post.id ? -1 : 1),
      );
    const top = ranked.map(({ post, mine }, index) => {
      const ever = rows.filter((row) => row.postId === post.id);
      return {
        rank: index + 1,
        postId: post.id,
        title: post.title,
        version: post.version,
        downloads: mine.length,
        perDay: days.map((day) => mine.filter((row) => dayOf(row) === day).length),
        owners: new Set(ever.map((row) => row.userId)).size,
        ownersOnCurrentVersion: new Set(ever.filter((row) => row.version === post.version).map((row) => row.userId)).size,
      };
    });
    return { perDay, top: { days, posts: top } };
  }

  const answers = async () => {
    const result = [];
    for (const range of RANGES) {
      result.push({ range: range.from, supporters: await supportersByMonth(range), perDay: await downloadsPerDay(range), top: await topPosts(range, 100) });
    }
    return result;
  };
  const expected = async () => {
    const result = [];
    for (const range of RANGES) {
      const downloads = await expectedDownloads(range);
      result.push({ range: range.from, supporters: await expectedSupporters(range), perDay: downloads.perDay, top: downloads.top });
    }
    return result;
  };
  const rollupRows = async () => {
    const tables = {
      download_day_sources: "SELECT day::text, access_source::text, downloads FROM download_day_sources ORDER BY 1, 2",
      download_days: "SELECT day::text, unique_users FROM download_days ORDER BY 1",
      download_post_days: "SELECT day::text, post_id, downloads, running_total FROM download_post_days ORDER BY 1, 2",
      download_post_owners: "SELECT post_id, owners FROM download_post_owners ORDER BY 1",
      download_post_versions: "SELECT post_id, version, users FROM download_post_versions ORDER BY 1, 2",
      supporter_tier_days: "SELECT day::text, tier_id, started, stopped, title FROM supporter_tier_days ORDER BY 1, 2",
      supporter_days: "SELECT day::text, gained, lost FROM supporter_days ORDER BY 1",
    };
    const rows: Record<string, unknown[]> = {};
    for (const [table, sql] of Object.entries(tables)) rows[table] = await db.$queryRawUnsafe(sql);
    return rows;
  };
  const marks = async () => db.insightsChange.count();

  it("gives the raw rows' answers before the job, after a full run, after changes, an incremental run and a rebuild", async () => {
    await db.user.createMany({ data: [...users, "g-gone-user"].map((id) => ({ id, email: `${id}@generated.example`, fullName: id, mailVerified: true })) });
    await db.tier.createMany({
      data: [
        { id: "g-alpha", title: "G Alpha" },
        { id: "g-beta", title: "G Beta" },
      ],
    });
    await db.post.createMany({
      data: [1, 2, 3, 4, 5, 6].map((n) => ({ id: `g-p${n}`, title: `G post ${n}`, version: "V2", enabled: n !== 6 })),
    });
    const events: NewEvent[] = [
      // A tier change in the middle of March.
      pledge("g-u00", "pledge_start", at("2023-03-03T10:00:00Z"), "g-alpha"),
      pledge("g-u00", "pledge_upgrade", at("2023-03-17T10:00:00Z"), "g-beta"),
      // Month boundaries: the last millisecond of February, the first of April.
      pledge("g-u01", "pledge_start", at("2023-02-28T23:59:59.999Z"), "g-alpha"),
      pledge("g-u01", "pledge_delete", at("2023-04-01T00:00:00.000Z"), "g-alpha", null),
      // Two events at the same instant: the later id decides.
      pledge("g-u02", "pledge_start", at("2023-05-10T00:00:00Z"), "g-alpha", "Paid", "g-e90000a"),
      pledge("g-u02", "pledge_upgrade", at("2023-05-10T00:00:00Z"), "g-beta", "Paid", "g-e90000b"),
      // Exactly at the job's first moment, and a tier nobody lists any more.
      pledge("g-u03", "pledge_start", T1, "g-gone"),
      // An account that will be deleted, with pledges and no downloads.
      pledge("g-gone-user", "pledge_start", at("2023-01-15T00:00:00Z"), "g-beta"),
      pledge("g-gone-user", "pledge_downgrade", at("2023-04-15T00:00:00Z"), "g-alpha"),
    ];
    for (const userId of users) {
      for (let count = Math.floor(random() * 5), index = 0; index < count; index++) {
        const type = index === 0 ? "pledge_start" : pick(["pledge_upgrade", "pledge_downgrade", "pledge_delete", "pledge_start"]);
        events.push(
          pledge(
            userId,
            type,
            someTime(),
            pick(["g-alpha", "g-beta", "g-gone", null]),
            type === "pledge_delete" ? null : pick(["Paid", "Paid", "Paid", "Declined", null, "Pending"]),
          ),
        );
      }
    }
    await db.pledgeEvent.createMany({ data: events });
    const sources = ["FREE", "TIER", "EARLY_SUPPORTER", "PURCHASE", "GRANT", "UNKNOWN"] as const;
    await db.download.createMany({
      data: Array.from({ length: 400 }, () => ({
        userId: pick(users),
        postId: `g-p${1 + Math.floor(6 * random() ** 2)}`,
        version: pick(["V1", "V2"]),
        createdAt: someTime(),
        accessSource: pick(sources),
      })),
    });

    // No rollups yet: everything raw.
    expect(await answers()).toEqual(await expected());
    expect(await refreshInsightsRollups(T1)).toMatchObject({ skipped: false, full: true, through: "2023-06-20" });
    expect(await marks()).toBe(0);
    expect(await db.supporterTierDay.count()).toBeGreaterThan(0);
    expect(await answers()).toEqual(await expected());

    // Changes after the run, none deleting a download.
    const before = await marks();
    const [first] = await db.pledgeEvent.findMany({ where: { userId: "g-u00" }, orderBy: { date: "asc" }, take: 1 });
    const { id: firstId, ...firstData } = first!;
    await db.pledgeEvent.update({ where: { id: firstId }, data: firstData }); // the sync rewriting an event as it was
    expect(await marks()).toBe(before);
    await db.pledgeEvent.update({ where: { id: firstId }, data: { tierId: "g-gone", tierTitle: "G Gone" } }); // changed in place
    await db.pledgeEvent.create({ data: pledge("g-u05", "pledge_start", at("2023-02-10T08:00:00Z"), "g-beta") }); // late history
    await db.user.delete({ where: { id: "g-gone-user" } });
    await db.pledgeEvent.createMany({
      data: [pledge("g-u06", "pledge_delete", at("2023-06-20T15:00:00Z"), null, null), pledge("g-u07", "pledge_start", at("2023-06-21T01:00:00Z"), "g-alpha")],
    });
    await db.download.createMany({
      data: [
        { userId: "g-u08", postId: "g-p4", version: "V2", createdAt: at("2023-06-20T13:00:00Z"), accessSource: "FREE" },
        { userId: "g-u09", postId: "g-p6", version: "V1", createdAt: at("2023-06-21T02:00:00Z"), accessSource: "TIER" },
      ],
    });
    await db.post.update({ where: { id: "g-p2" }, data: { enabled: false } });
    expect(await marks()).toBeGreaterThan(before);
    // Exact before the job has run again: the supporters read the marked days raw.
    expect(await answers()).toEqual(await expected());

    const incremental = await refreshInsightsRollups(T2);
    expect(incremental).toMatchObject({ skipped: false, full: false, from: "2023-06-18", through: "2023-06-21" });
    expect(await answers()).toEqual(await expected());
    const incrementalRows = await rollupRows();
    expect(await refreshInsightsRollups(T2, { full: true })).toMatchObject({ full: true });
    expect(await rollupRows()).toEqual(incrementalRows);
    expect(await answers()).toEqual(await expected());

    // Deleted downloads (an account, a post): the next run rebuilds and agrees again.
    await db.user.delete({ where: { id: "g-u04" } });
    await db.post.delete({ where: { id: "g-p5" } });
    expect((await answers()).map((answer) => answer.supporters)).toEqual((await expected()).map((answer) => answer.supporters));
    expect(await refreshInsightsRollups(T3)).toMatchObject({ full: true });
    expect(await marks()).toBe(0);
    expect(await answers()).toEqual(await expected());
    // And with no rollups at all, the same answers again.
    await db.insightsRollupState.deleteMany();
    expect(await answers()).toEqual(await expected());
  }, 60_000);

  it("marks downloads deleted with an account, not those the retention prune deletes", async () => {
    const { pruneOldDownloads } = await import("~/models/my-library.server");
    const old = await createTestUser();
    await db.download.createMany({
      data: [
        { userId: old.id, postId: "p-free", version: "V1", createdAt: at("2000-01-01T00:00:00Z") },
        { userId: old.id, postId: "p-free", version: "V1", createdAt: at("2000-06-01T00:00:00Z") },
      ],
    });
    await db.insightsChange.deleteMany();
    expect(await pruneOldDownloads(at("2002-01-01T00:00:00Z"), 730)).toBe(1);
    expect(await marks()).toBe(0);
    await db.user.delete({ where: { id: old.id } });
    expect(await db.insightsChange.findMany({ select: { source: true, at: true } })).toEqual([{ source: "downloads", at: at("2000-06-01T00:00:00Z") }]);
  });
});

describe("shop", () => {
  it("stores the order amount from the webhook and the CSV, and counts each order's revenue once", async () => {
    const payload = kofiPayload({
      timestamp: "2025-03-31T23:59:59Z",
      amount: "12.50",
      currency: "eur",
      kofi_transaction_id: "TX-W",
      shop_items: [{ direct_link_code: "a1" }, { direct_link_code: "a2" }],
    });
    await recordKofiWebhook(parseKofiWebhook(JSON.stringify(payload)));
    expect(await db.purchase.findMany({ where: { transactionId: "TX-W" }, select: { amountCents: true, currency: true } })).toEqual([
      { amountCents: 1250, currency: "EUR" },
      { amountCents: 1250, currency: "EUR" },
    ]);
    const header = "DateTime (UTC),From,Message,Item,Received,Given,Currency,TransactionType,TransactionId,Reference,SalesTax,BuyerEmail";
    await importPurchasesCsv(null, `${header}\n04/01/2025 00:00,Bob,,shop-table,5.00,5.00,USD,Shop Order,TX-C,,0,bob@example.com\n`, "export.csv");
    await db.purchase.create({
      data: { email: "old@example.com", kofiItemCode: "x", transactionId: "TX-OLD", source: "ADMIN", purchasedAt: at("2025-04-02T00:00:00Z") },
    });
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
    const lines = (await response.text())
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\n");
    expect(lines[0]).toBe("Day (UTC),Free,Tier,Early supporter,Purchase,Grant,Admin,Unknown (before sources were recorded),Total downloads,Unique users");
    expect(lines.slice(1)).toEqual(["2025-03-01,1,0,0,0,0,0,0,1,1", "2025-03-02,1,1,0,1,0,0,0,3,2"]);
    const bad = await callRoute(route, {
      path: "/admin/insights/downloads.csv?range=custom&from=2025-03-05&to=2025-03-01",
      params: { chart: "downloads" },
      cookie: await sessionCookie(admin.id),
    });
    expect(bad.status).toBe(400);
    const page = await callRoute(await import("~/routes/admin_.insights"), {
      path: "/admin/insights?range=custom&from=2025-03-01&to=2025-03-03",
      cookie: await sessionCookie(admin.id),
    });
    expect(page.status).toBe(200);
    // "Members now" is the supporters figure of a range that reaches today; an earlier range keeps the history's count.
    type View = { view: { supporters: { members: { total: number } | null } } };
    expect(((await page.json()) as View).view.supporters.members).toBeNull();
    const recent = await callRoute(await import("~/routes/admin_.insights"), { path: "/admin/insights?range=7", cookie: await sessionCookie(admin.id) });
    expect(((await recent.json()) as View).view.supporters.members).toEqual(await currentMembersByTier());
  });

  it("refuses everyone but effective admins with 403, page and every export", async () => {
    const { INSIGHTS_CHARTS } = await import("~/utils/insights-schemas");
    const restrictedAdmin = await createTestUser({ isAdmin: true, restricted: true });
    const fan = await createTestUser();
    const csvRoute = await import("~/routes/admin_.insights.$chart[.]csv");
    const pageRoute = await import("~/routes/admin_.insights");
    for (const cookie of [undefined, await sessionCookie(fan.id), await sessionCookie(restrictedAdmin.id)]) {
      expect((await callRoute(pageRoute, { path: "/admin/insights", cookie })).status).toBe(403);
      for (const chart of INSIGHTS_CHARTS)
        expect((await callRoute(csvRoute, { path: `/admin/insights/${chart}.csv`, params: { chart }, cookie })).status).toBe(403);
    }
  });
});
