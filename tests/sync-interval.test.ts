import pg from "pg";
import { register } from "prom-client";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";

// The fake platform must be up before any module reads the (cached) configuration.
const fake = await vi.hoisted(async () => {
  const { startFakePatreonApi } = await import("./fakes/patreon-api");
  const api = await startFakePatreonApi({
    pageSize: 2,
    tiers: [
      { id: "8824971", title: "Tier 1", amountCents: 300 },
      { id: "8825009", title: "Tier 2", amountCents: 500 },
      { id: "21786318", title: "Tier 3", amountCents: 1000 },
    ],
  });
  process.env.PATREON_API_URL = api.apiUrl;
  process.env.PATREON_CREATOR_ACCESS_TOKEN = "creator-token";
  return api;
});

import { db } from "~/db.server";
import { runJob } from "~/jobs.server";
import { intervalRunAccount, runIntervalSync } from "~/models/interval-sync.server";
import { syncRecentlyLinkedMembers } from "~/models/patreon-membership.server";
import * as forceInterval from "~/routes/api.admin.force-interval";
import * as unlockObjects from "~/routes/api.admin.unlock-objects-user";
import type { FakeMember } from "./fakes/patreon-api";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

afterAll(() => fake.stop());

const T1 = "8824971";
const T2 = "8825009";
const T3 = "21786318";
const PUBLISHED = "2024-06-01T12:00:00.000Z";

function member(n: string, patch: Partial<FakeMember>): FakeMember {
  return {
    memberId: `member-${n}`,
    patreonUserId: `pu-${n}`,
    email: `${n}@patreon.example`,
    fullName: `Patron ${n}`,
    patronStatus: "active_patron",
    tierIds: [T1],
    pledgeHistory: [],
    ...patch,
  };
}

beforeEach(async () => {
  // Only the failure test expects logged errors (setup-file checks after each test).
  globalThis.__allowConsoleError = false;
  fake.failPage(null);
  await db.unlockedContent.deleteMany();
  await db.pledgeEvent.deleteMany();
  await db.user.deleteMany();
  await db.post.deleteMany();
  await db.tier.deleteMany();
  await db.jobRun.deleteMany();
  await db.tier.createMany({
    data: [
      { id: T1, title: "Tier 1", amountCents: 300, isPaid: true },
      { id: T2, title: "Tier 2", amountCents: 500, isPaid: true },
      { id: T3, title: "Tier 3", amountCents: 1000, isPaid: true },
    ],
  });
  // Published for Tier 3 supporters; later also offered to Tier 2.
  await db.post.create({
    data: {
      id: "early-post",
      title: "Gothic Windows",
      firstPublishedAt: new Date(PUBLISHED),
      tiers: {
        create: [
          { tierId: T3, kind: "FIRST" },
          { tierId: T3, kind: "CURRENT" },
          { tierId: T2, kind: "CURRENT" },
        ],
      },
    },
  });
});

/** Runs of the interval job counted in clib_job_runs_total with this outcome. */
async function jobRunCount(outcome: "ok" | "failed"): Promise<number> {
  const values = (await register.getSingleMetric("clib_job_runs_total")?.get())?.values ?? [];
  return values.find((value) => value.labels.job === "interval" && value.labels.outcome === outcome)?.value ?? 0;
}

async function tierOf(patreonId: string) {
  return (await db.user.findUniqueOrThrow({ where: { patreonId } })).currentTierId;
}
async function unlocksOf(patreonId: string) {
  const user = await db.user.findUniqueOrThrow({ where: { patreonId } });
  return (await db.unlockedContent.findMany({ where: { userId: user.id } })).map((row) => [row.postId, row.source]);
}

describe("the interval job", () => {
  it("pages through all members (with a 429 in the middle), updates tiers and pledge history, and writes rule-5 unlocks", async () => {
    fake.members.splice(
      0,
      fake.members.length,
      // An early Tier 3 supporter who downgraded since: keeps the post.
      member("early", {
        tierIds: [T1],
        pledgeHistory: [
          { id: "pledge_start:1", type: "pledge_start", date: "2024-01-01T00:00:00Z", amountCents: 1000, tierId: T3, tierTitle: "Tier 3" },
          { id: "pledge_downgrade:2", type: "pledge_downgrade", date: "2025-01-01T00:00:00Z", amountCents: 300, tierId: T1, tierTitle: "Tier 1" },
        ],
      }),
      // Supported since before, but at a lower tier: no.
      member("lower", {
        tierIds: [T2],
        pledgeHistory: [{ id: "pledge_start:3", type: "pledge_start", date: "2024-01-01T00:00:00Z", amountCents: 500, tierId: T2, tierTitle: "Tier 2" }],
      }),
      // Tier 3, but joined after the post came out: no.
      member("late", {
        tierIds: [T3, T1],
        pledgeHistory: [{ id: "pledge_start:4", type: "pledge_start", date: "2024-09-01T00:00:00Z", amountCents: 1000, tierId: T3, tierTitle: "Tier 3" }],
      }),
      // Was Tier 3 but had left before publication: no.
      member("gone", {
        patronStatus: "former_patron",
        tierIds: [],
        pledgeHistory: [
          { id: "pledge_start:5", type: "pledge_start", date: "2023-01-01T00:00:00Z", amountCents: 1000, tierId: T3, tierTitle: "Tier 3" },
          { id: "pledge_delete:6", type: "pledge_delete", date: "2024-05-01T00:00:00Z", amountCents: 0, tierId: T3, tierTitle: "Tier 3" },
        ],
      }),
      // A member with no account here.
      member("stranger", { tierIds: [T2] }),
    );
    for (const name of ["early", "lower", "late", "gone"]) await createTestUser({ patreonId: `pu-${name}` });
    // Linked here but no longer a member of the campaign: the tier goes.
    await createTestUser({ patreonId: "pu-lapsed", currentTierId: T2 });

    fake.rateLimitPageOnce(1, 1);
    const requestsBefore = fake.requests.length;
    const { summary } = await runIntervalSync({ trigger: "admin" });

    expect(summary).toMatchObject({ status: "succeeded", pages: 3, members: 5, matched: 4, tiersCleared: 1, rateLimitRetries: 1 });
    const memberRequests = fake.requests.slice(requestsBefore).filter((line) => line.includes("/members"));
    expect(memberRequests).toHaveLength(4); // three pages, the second asked twice
    expect(await tierOf("pu-early")).toBe(T1);
    expect(await tierOf("pu-lower")).toBe(T2);
    expect(await tierOf("pu-late")).toBe(T3); // the highest entitled tier
    expect(await tierOf("pu-gone")).toBeNull();
    expect(await tierOf("pu-lapsed")).toBeNull();

    expect(await unlocksOf("pu-early")).toEqual([["early-post", "SYNC"]]);
    expect(await unlocksOf("pu-lower")).toEqual([]);
    expect(await unlocksOf("pu-late")).toEqual([]);
    expect(await unlocksOf("pu-gone")).toEqual([]);

    const early = await db.user.findUniqueOrThrow({ where: { patreonId: "pu-early" }, include: { pledgeEvents: { orderBy: { date: "asc" } } } });
    expect(early.pledgeEvents.map((event) => [event.id, event.type, event.amountCents, event.tierId, event.paymentStatus])).toEqual([
      ["pledge_start:1", "pledge_start", 1000, T3, "Paid"],
      ["pledge_downgrade:2", "pledge_downgrade", 300, T1, "Paid"],
    ]);
    const runs = await db.jobRun.findMany();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ job: "interval", trigger: "admin", status: "succeeded", error: null });
    expect(runs[0]!.finishedAt).not.toBeNull();

    // Running again changes nothing.
    const { summary: again } = await runIntervalSync({ trigger: "timer" });
    expect(again).toMatchObject({ status: "succeeded", tierChanges: 0, tiersCleared: 0 });
    expect(await db.pledgeEvent.count()).toBe(6);
    expect(await db.unlockedContent.count()).toBe(1);
  });

  it("keeps earlier pages and leaves the failing page as it was", async () => {
    globalThis.__allowConsoleError = true;
    fake.members.splice(
      0,
      fake.members.length,
      member("p1a", { tierIds: [T3] }),
      member("p1b", { tierIds: [T3] }),
      member("p2a", { tierIds: [T3] }),
      // Its pledge amount does not fit the column: the database refuses this member mid-page.
      member("p2b", {
        tierIds: [T3],
        pledgeHistory: [
          { id: "pledge_start:99", type: "pledge_start", date: "2024-01-01T00:00:00Z", amountCents: 99_999_999_999, tierId: T3, tierTitle: "Tier 3" },
        ],
      }),
      member("p3a", { tierIds: [T3] }),
    );
    for (const name of ["p1a", "p1b", "p2a", "p2b", "p3a"]) await createTestUser({ patreonId: `pu-${name}`, currentTierId: T1 });

    const { summary } = await runIntervalSync({ trigger: "admin" });
    expect(summary.status).toBe("failed");
    expect(summary.pages).toBe(1);
    expect(await tierOf("pu-p1a")).toBe(T3);
    expect(await tierOf("pu-p1b")).toBe(T3);
    // p2a came before the bad member on the same page: rolled back with it.
    expect(await tierOf("pu-p2a")).toBe(T1);
    expect(await tierOf("pu-p2b")).toBe(T1);
    expect(await tierOf("pu-p3a")).toBe(T1);
    expect(await db.pledgeEvent.count()).toBe(0);
    const run = await db.jobRun.findFirstOrThrow({ where: { id: summary.jobRunId! } });
    expect(run.status).toBe("failed");
    expect(run.error).toBeTruthy();

    // An API failure is reported the same way, through the admin endpoint: a failed job run,
    // logged with its run id and the error, and counted as failed.
    fake.members.splice(3, 1);
    fake.failPage(1, 500);
    const admin = await createTestUser({ isAdmin: true });
    const failedRuns = await jobRunCount("failed");
    // The test logger writes errors through console.error (app/logger.server.ts); allowed in this test.
    const logged = vi.spyOn(console, "error");
    const loggedBefore = logged.mock.calls.length;
    const response = await callRoute(forceInterval, { method: "POST", cookie: await sessionCookie(admin.id) });
    expect(response.status).toBe(502);
    const body = await readJsonBody<{ error: string; details: string }>(response);
    expect(body.error).toBe("Error forcing interval.");
    expect(body.details).toMatch(/answered 500/);
    expect(await tierOf("pu-p2a")).toBe(T1);
    expect(await jobRunCount("failed")).toBe(failedRuns + 1);
    const lines = logged.mock.calls.slice(loggedBefore).map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "error",
      msg: "job failed",
      job: "interval",
      trigger: "admin",
      err: { message: expect.stringMatching(/answered 500/) },
    });
    expect(lines[0]!.runId).toMatch(/^[0-9a-f-]{36}$/);
    // The run's own row and the audit entry are kept as before.
    expect(await db.jobRun.count({ where: { trigger: "admin", status: "failed" } })).toBe(2);
    expect(await db.auditEntry.count({ where: { action: "interval.force", actorId: admin.id } })).toBe(1);

    // The timer's run of the same failing sync is a failed run too.
    await runJob({ name: "interval", run: () => runIntervalSync({ trigger: "timer" }), account: intervalRunAccount });
    expect(await jobRunCount("failed")).toBe(failedRuns + 2);
    expect(JSON.parse(String(logged.mock.calls.at(-1)![0]))).toMatchObject({ msg: "job failed", job: "interval", trigger: "timer" });
    expect(await db.jobRun.count({ where: { trigger: "timer", status: "failed" } })).toBe(1);
  });

  it("runs on one server only: a held advisory lock makes another run skip", async () => {
    fake.members.splice(0, fake.members.length);
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      // Another server's run: its lock lives as long as its transaction (pooler-safe).
      await other.query("BEGIN");
      await other.query("SELECT pg_advisory_xact_lock($1)", [7_351_002_001]);
      const { summary } = await runIntervalSync({ trigger: "timer" });
      expect(summary).toMatchObject({ status: "skipped", error: "The interval job is already running." });
      expect(await db.jobRun.count()).toBe(0);
      await other.query("COMMIT");
    } finally {
      await other.end();
    }
    expect((await runIntervalSync({ trigger: "timer" })).summary.status).toBe("succeeded");
    // A finished run leaves no lock behind: the next one runs too.
    expect((await runIntervalSync({ trigger: "timer" })).summary.status).toBe("succeeded");
  });
});

describe("right after a support-platform link", () => {
  it("fetches the pledge history of accounts linked in the last minutes, not of older ones", async () => {
    const history = [
      { id: "pledge_start:fresh", type: "pledge_start" as const, date: "2024-01-01T00:00:00Z", amountCents: 1000, tierId: T3, tierTitle: "Tier 3" },
    ];
    fake.members.splice(
      0,
      fake.members.length,
      member("other1", { tierIds: [T1] }),
      member("other2", { tierIds: [T1] }),
      member("fresh", { tierIds: [T1], pledgeHistory: history }),
      member("old", { tierIds: [T3], pledgeHistory: [{ ...history[0]!, id: "pledge_start:old" }] }),
    );
    const fresh = await createTestUser({ patreonId: "pu-fresh" });
    const old = await createTestUser({ patreonId: "pu-old" });
    await db.$executeRaw`UPDATE users SET updated_at = now() - interval '1 day' WHERE id = ${old.id}`;

    expect(await syncRecentlyLinkedMembers()).toBe(1);
    expect((await db.pledgeEvent.findMany({ where: { userId: fresh.id } })).map((event) => event.id)).toEqual(["pledge_start:fresh"]);
    expect(await unlocksOf("pu-fresh")).toEqual([["early-post", "SYNC"]]);
    expect(await db.pledgeEvent.count({ where: { userId: old.id } })).toBe(0);
    // Nothing left to fetch: no request to the platform at all.
    const before = fake.requests.length;
    expect(await syncRecentlyLinkedMembers()).toBe(0);
    expect(fake.requests.length).toBe(before);
  });
});

describe("admin endpoints of the sync", () => {
  it("force-interval answers the summary to admins only", async () => {
    fake.members.splice(0, fake.members.length, member("solo", { tierIds: [T2] }));
    await createTestUser({ patreonId: "pu-solo" });
    const admin = await createTestUser({ isAdmin: true });
    const okRuns = await jobRunCount("ok");
    const response = await callRoute(forceInterval, { method: "POST", cookie: await sessionCookie(admin.id) });
    expect(response.status).toBe(200);
    expect(await jobRunCount("ok")).toBe(okRuns + 1);
    expect(await readJsonBody(response)).toMatchObject({ message: "Interval job completed.", summary: { status: "succeeded", matched: 1 } });
    expect(await tierOf("pu-solo")).toBe(T2);
    expect(await db.auditEntry.count({ where: { action: "interval.force", actorId: admin.id } })).toBe(1);

    expect((await callRoute(forceInterval, { method: "POST" })).status).toBe(401);
    const user = await createTestUser();
    expect((await callRoute(forceInterval, { method: "POST", cookie: await sessionCookie(user.id) })).status).toBe(403);
  });

  it("unlock-objects-user recomputes one user's unlocks and keeps admin grants", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const supporter = await createTestUser({ patreonId: "pu-one" });
    await db.pledgeEvent.create({
      data: {
        id: "pledge_start:77",
        userId: supporter.id,
        type: "pledge_start",
        amountCents: 1000,
        date: new Date("2024-02-01T00:00:00Z"),
        tierId: T3,
        paymentStatus: "Paid",
      },
    });
    await db.post.create({ data: { id: "granted-post", title: "Granted" } });
    await db.unlockedContent.create({ data: { userId: supporter.id, postId: "granted-post", source: "ADMIN" } });
    // A stale sync unlock the history no longer supports.
    await db.post.create({ data: { id: "stale-post", title: "Stale" } });
    await db.unlockedContent.create({ data: { userId: supporter.id, postId: "stale-post", source: "SYNC" } });

    const response = await callRoute(unlockObjects, { method: "POST", json: { userId: supporter.id }, cookie });
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toMatchObject({ added: 1, removed: 1, total: 1 });
    const rows = await db.unlockedContent.findMany({ where: { userId: supporter.id }, orderBy: { postId: "asc" } });
    expect(rows.map((row) => [row.postId, row.source])).toEqual([
      ["early-post", "SYNC"],
      ["granted-post", "ADMIN"],
    ]);
    expect(await db.auditEntry.count({ where: { action: "unlocks.recompute", targetId: supporter.id } })).toBe(1);

    const missing = await callRoute(unlockObjects, { method: "POST", json: {}, cookie });
    expect(missing.status).toBe(400);
    expect(await readJsonBody(missing)).toEqual({ error: "No user selected" });
    const unknown = await callRoute(unlockObjects, { method: "POST", json: { userId: "nobody" }, cookie });
    expect(unknown.status).toBe(404);
    const user = await createTestUser();
    expect((await callRoute(unlockObjects, { method: "POST", json: { userId: user.id }, cookie: await sessionCookie(user.id) })).status).toBe(403);
  });
});

declare global {
  var __allowConsoleError: boolean | undefined;
}
