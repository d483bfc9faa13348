// /admin/releases as a timeline (docs/product.md#releases): the coming steps by day, each with
// "reached N · mailed M": the accounts it newly opens the post to, and the release notices sent.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { listReleases, setReleaseSteps, type ReleaseEvent } from "~/models/release.server";
import * as releasesPage from "~/routes/admin_.releases";
import { timelineCounts, timelineDays } from "~/utils/release-timeline";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

const DAY = 86_400_000;
let admin: User;
const people: Record<string, User[]> = {};

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  for (const [tier, count] of [
    [TIER_1, 2],
    [TIER_2, 3],
    [TIER_3, 1],
  ] as const) {
    people[tier] = [];
    for (let index = 0; index < count; index++) people[tier].push(await createTestUser({ currentTierId: tier }));
  }
  people.none = [await createTestUser({}), await createTestUser({})];
  // A restricted member is never reached.
  await createTestUser({ currentTierId: TIER_1, restricted: true });
});

/** A release notice as the release-mail job leaves it: the ledger's claim and the sent outbox row at the same instant. */
async function noticeSent(user: User, postId: string, at: Date) {
  await db.updateMailed.create({ data: { userId: user.id, kind: "NEW_POST", subjectId: postId, mailedAt: at } });
  await db.outboxMail.create({
    data: {
      idempotencyKey: `release:${user.id}:${postId}:${at.getTime()}`,
      kind: "release",
      userId: user.id,
      to: `${user.id}@example.com`,
      subject: "Now available in the Creator Library",
      text: "",
      html: "",
      status: "SENT",
      giveUpAt: new Date(at.getTime() + DAY),
      createdAt: at,
      sentAt: at,
    },
  });
}

describe("the release timeline's counts", () => {
  it("counts who each step newly reaches, and the notices mailed for it", async () => {
    const post = await createPost({ title: "Ladder Timeline", tiers: [TIER_3], firstPublishedAt: new Date(Date.now() - 4 * DAY) });
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_2, after_days: 2 },
        { audience: TIER_1, after_days: 9 },
        { audience: "everyone", after_days: 20 },
      ],
    });
    // One Tier 1 member already has the post unlocked: Tier 1's step opens nothing new to them.
    await db.unlockedContent.create({ data: { userId: people[TIER_1]![0]!.id, postId: post.id, source: "ADMIN" } });
    const steps = await db.releaseStep.findMany({ where: { postId: post.id }, orderBy: { position: "asc" } });
    const tier2Opened = steps[0]!.opensAt;
    // Two Tier 2 notices after Tier 2's step; a digest's claim (no release mail) is not a notice.
    await noticeSent(people[TIER_2]![0]!, post.id, new Date(tier2Opened.getTime() + 60_000));
    await noticeSent(people[TIER_2]![1]!, post.id, new Date(tier2Opened.getTime() + 120_000));
    await db.updateMailed.create({
      data: { userId: people[TIER_2]![2]!.id, kind: "NEW_POST", subjectId: post.id, mailedAt: new Date(tier2Opened.getTime() + 60_000) },
    });

    const { upcoming, recent } = await listReleases();
    const mine = (events: typeof upcoming) => events.filter((event) => event.postId === post.id).map((event) => [event.audience, event.reached, event.mailed]);
    expect(mine(recent)).toEqual([[TIER_2, 3, 2]]);
    // Tier 1: two members, one already unlocked. Everyone: the accounts without Tier 1, 2 or 3
    // (two here, plus those other tests of this file made; none of those has a tier).
    const untiered = await db.user.count({ where: { currentTierId: null, restricted: false, isAdmin: false } });
    expect(mine(upcoming)).toEqual([
      [TIER_1, 1, 0],
      ["everyone", untiered, 0],
    ]);
  });

  it("a free post's steps reach no one new", async () => {
    const post = await createPost({ title: "Free Timeline", paid: false });
    await setReleaseSteps(admin, post.id, { steps: [{ audience: "everyone", after_days: 40 }] });
    const { upcoming } = await listReleases();
    expect(upcoming.filter((event) => event.postId === post.id).map((event) => event.reached)).toEqual([0]);
  });
});

describe("the /admin/releases page", () => {
  it("answers admins the coming steps with their counts, grouped by day in the creator's zone", async () => {
    const post = await createPost({ title: "Page Timeline", tiers: [TIER_3], firstPublishedAt: new Date(Date.now() - DAY) });
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_2, after_days: 3 },
        { audience: TIER_1, after_days: 3 },
        { audience: "everyone", after_days: 10 },
      ],
    });
    const page = await callRoute(releasesPage, { path: "/admin/releases", cookie: await sessionCookie(admin.id) });
    expect(page.status).toBe(200);
    const { upcoming } = (await page.json()) as { upcoming: ReleaseEvent[] };
    const mine = upcoming.filter((event) => event.postId === post.id);
    expect(mine.map(timelineCounts)).toEqual(["reached 3 · mailed 0", "reached 2 · mailed 0", expect.stringMatching(/^reached \d+ · mailed 0$/)]);
    // The two steps of the same day under one day, the free step under its own.
    const days = timelineDays(mine, "UTC");
    expect(days.map((day) => day.events.map((event) => event.audience))).toEqual([[TIER_2, TIER_1], ["everyone"]]);
    expect(days[0]!.day).toBe(
      new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric" }).format(new Date(mine[0]!.at)),
    );
    const member = await callRoute(releasesPage, { path: "/admin/releases", cookie: await sessionCookie(people[TIER_3]![0]!.id) });
    expect(member.status).toBe(302);
  });
});
