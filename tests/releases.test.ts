// Releases against the real database (docs/product.md#releases): a scheduled post is hidden from
// everyone but admins until its time; steps open a post to tiers and to everyone as time passes,
// with no write in between, through the kept listing; the admin card's forms and the /api routes
// save the same way and refuse bad input in the spec's words; the Releases view counts reach.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { authorizeDownload } from "~/models/download.server";
import { checkAccess } from "~/models/access.server";
import { libraryPostsJson, listLibraryPosts, type LibraryPost } from "~/models/library-listing.server";
import { loadViewerContext } from "~/models/entitlement.server";
import { linkIdeaToPost, listShippedIdeas } from "~/models/inspiration-shipped.server";
import { listReleases, publishPost, setReleaseSteps } from "~/models/release.server";
import { digestMail } from "~/models/update-digest.server";
import { listComingFor, listUpdatesFor } from "~/models/update-notifications.server";
import * as libraryRoute from "~/routes/library";
import * as publishRoute from "~/routes/api.library.posts.$id.publish";
import * as releaseRoute from "~/routes/api.library.posts.$id.release";
import * as releasesPage from "~/routes/admin_.releases";
import * as votePage from "~/routes/inspiration-vote";
import type { User } from "~/generated/prisma/client";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

const DAY = 86_400_000;
let admin: User;
let tier1: User;
let tier2: User;
let tier3: User;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  tier1 = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
  tier2 = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  tier3 = await createTestUser({ currentTierId: TIER_3, tosAccepted: true });
});

async function listed(user: User | null, postId: string): Promise<LibraryPost | undefined> {
  return (await listLibraryPosts(user)).posts.find((post) => post.postId === postId);
}

/** The toast a redirect carries (the signed cookie's payload). */
function toastOf(response: Response): string {
  const value = /toast-session=([^;]+)/.exec(response.headers.get("Set-Cookie") ?? "")?.[1] ?? "";
  return Buffer.from(decodeURIComponent(value).split(".")[0]!, "base64").toString("utf8");
}

async function refusal(run: Promise<unknown>): Promise<number | "allowed"> {
  try {
    await run;
    return "allowed";
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe("scheduled publication", () => {
  it("hides the post from guests and members until its time, not from admins; Publish now shows it", async () => {
    const post = await createPost({ paid: false, title: "Scheduled Pack" });
    const at = new Date(Date.now() + 3 * DAY);
    const answered = await publishPost(admin, post.id, { publish_at: at });
    expect(answered.publish_at).toBe(at.toISOString());
    expect(answered.first_published_at).toBe(at.toISOString());
    expect(await listed(null, post.id)).toBeUndefined();
    expect(await listed(tier3, post.id)).toBeUndefined();
    expect(await listed(admin, post.id)).toMatchObject({ publish_at: at.toISOString() });
    expect(await refusal(authorizeDownload(null, post.id))).toBe(404);
    expect(await refusal(authorizeDownload(tier3, post.id))).toBe(404);
    expect(await refusal(authorizeDownload(admin, post.id))).toBe("allowed");
    expect((await checkAccess(tier3.id, post.id)).access.misses[0]).toMatch(/^Scheduled for \d+ \w+ \d{4}, \d\d:\d\d: not published yet$/);

    const before = Date.now();
    const published = await publishPost(admin, post.id, { publish_now: true });
    // The first published date is the moment it became visible.
    expect(new Date(published.first_published_at!).getTime()).toBeGreaterThanOrEqual(before);
    expect(await listed(null, post.id)).toMatchObject({ unlocked: true });
    expect(await refusal(authorizeDownload(null, post.id))).toBe("allowed");
    await expect(publishPost(admin, post.id, { publish_now: true })).rejects.toMatchObject({ status: 409, message: "This post is already published." });
    const audit = await db.auditEntry.findMany({ where: { targetId: post.id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((row) => row.action)).toEqual(["post.schedule", "post.publish"]);
  });

  it("shows a post scheduled a moment ahead once its time passes, with no write in between", async () => {
    const post = await createPost({ paid: false });
    await publishPost(admin, post.id, { publish_at: new Date(Date.now() + 1200) });
    const stamp = (await loadViewerContext(null, { withLibraryStamp: true })).libraryStamp;
    expect(await listed(null, post.id)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1400));
    expect((await loadViewerContext(null, { withLibraryStamp: true })).libraryStamp).toBe(stamp);
    expect(await listed(null, post.id)).toMatchObject({ unlocked: true });
  });
});

describe("the release cascade", () => {
  it("opens each step to its tier and those above, and names it", async () => {
    const post = await createPost({ tiers: [], firstPublishedAt: new Date(Date.now() - 10 * DAY) });
    const saved = await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 0 },
        { audience: TIER_2, after_days: 7 },
        { audience: TIER_1, after_days: 14 },
        { audience: "everyone", after_days: 60 },
      ],
    });
    // Ten days after publication: Tier 3 and Tier 2 (and the tiers above each) have it, Tier 1 not yet.
    expect(saved.tiers.sort()).toEqual([TIER_2, TIER_3].sort());
    expect(saved.paid_content).toBe(true);
    expect(saved.release_steps.map((step) => step.tier_ids)).toEqual([[TIER_3], [TIER_2, TIER_3], [TIER_1, TIER_2, TIER_3], null]);
    expect((await listed(tier2, post.id))?.unlocked).toBe(true);
    expect((await listed(tier1, post.id))?.unlocked).toBe(false);
    expect(await refusal(authorizeDownload(tier1, post.id))).toBe(403);
    expect(await refusal(authorizeDownload(tier2, post.id))).toBe("allowed");
    const released = await checkAccess(tier2.id, post.id);
    expect(released.access.summary).toMatch(/^Released to Tier 2 on \d+ \w+ \d{4}$/);
    const waiting = await checkAccess(tier1.id, post.id);
    expect(waiting.access.upcoming).toMatch(/^Opens to your Tier 1 on \d+ \w+ \d{4} \(in 4 days\)$/);
    const guest = (await callRoute(libraryRoute, { path: `/library?search=${encodeURIComponent(post.title)}` }).then((r) => r.json())) as {
      access: Record<string, { upcoming: string | null }>;
    };
    expect(guest.access[post.id]?.upcoming).toMatch(/^Free for everyone on \d+ \w+ \d{4} \(in 50 days\)$/);
  });

  it("opens a step while the listing is kept, with no write: the kept listing and its body change at the step's instant", async () => {
    const post = await createPost({ tiers: [TIER_3] });
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_1, opens_on: new Date(Date.now() + 1200) }] });
    const cookieContext = await loadViewerContext(tier1, { withDownloads: true, withLibraryStamp: true });
    const body = async () => JSON.parse((await libraryPostsJson({ user: tier1, context: cookieContext })).toString()) as { posts: LibraryPost[] };
    const before = (await body()).posts.find((item) => item.postId === post.id)!;
    expect(before.unlocked).toBe(false);
    expect(before.tiers).toEqual([TIER_3]);
    await new Promise((resolve) => setTimeout(resolve, 1400));
    const after = (await body()).posts.find((item) => item.postId === post.id)!;
    expect(after.unlocked).toBe(true);
    expect(after.tiers.sort()).toEqual([TIER_1, TIER_2, TIER_3].sort());
  });

  it("moves steps given in days when the publication moves", async () => {
    const post = await createPost({ firstPublishedAt: new Date(Date.now() - DAY) });
    await setReleaseSteps(admin, post.id, { steps: [{ audience: "everyone", after_days: 2 }] });
    const later = new Date(Date.now() + 5 * DAY);
    await publishPost(admin, post.id, { publish_at: later });
    const step = await db.releaseStep.findFirstOrThrow({ where: { postId: post.id } });
    expect(step.opensAt.getTime()).toBe(later.getTime() + 2 * DAY);
  });
});

describe("telling the people a step opens to", () => {
  it("announces the post to a newly reached tier from the step on, as 'Now available for your tier', and lists what is coming", async () => {
    const post = await createPost({ tiers: [], title: "Neon Cascade Set", firstPublishedAt: new Date(Date.now() - 10 * DAY) });
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 0 },
        { audience: TIER_2, after_days: 9 },
        { audience: TIER_1, after_days: 12 },
      ],
    });
    const since = new Date(Date.now() - 2 * DAY);
    const forTier2 = (await listUpdatesFor(tier2, { since, limit: 50 })).filter((item) => item.postId === post.id);
    expect(forTier2).toMatchObject([{ kind: "NEW_POST", released: true }]);
    const step = await db.releaseStep.findFirstOrThrow({ where: { postId: post.id, audienceTierId: TIER_2 } });
    expect(forTier2[0]!.at).toEqual(step.opensAt);
    expect(digestMail("t2@example.com", null, forTier2, "token").text).toContain("- Now available for your tier: Neon Cascade Set");
    // Tier 3 had it at publication: nothing new for them since.
    expect((await listUpdatesFor(tier3, { since, limit: 50 })).filter((item) => item.postId === post.id)).toEqual([]);
    // Tier 1 is not reached yet: nothing to announce, but it is coming to their tier.
    expect((await listUpdatesFor(tier1, { since, limit: 50 })).filter((item) => item.postId === post.id)).toEqual([]);
    const coming = (await listComingFor(tier1)).filter((item) => item.postId === post.id);
    expect(coming).toHaveLength(1);
    expect(new Date(coming[0]!.opensAt).getTime()).toBeGreaterThan(Date.now() + DAY);
  });
});

describe("voter-linked releases", () => {
  it("keeps the voters through a reset, shows the count, and tells a voter without access that the idea is out", async () => {
    const post = await createPost({ tiers: [], title: "Voted Lighthouse", firstPublishedAt: new Date(Date.now() - 3 * DAY) });
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_3, after_days: 1 }] });
    const panel = await db.inspirationPanel.create({ data: { imageUrl: "/media/x.jpg", title: "Lighthouse idea" } });
    const voter = await createTestUser({ currentTierId: TIER_2 });
    await db.inspirationLike.createMany({
      data: [
        { userId: voter.id, panelId: panel.id, kind: "LIKE" },
        { userId: voter.id, panelId: panel.id, kind: "PATREON" },
        { userId: tier3.id, panelId: panel.id, kind: "LIKE" },
      ],
    });
    await expect(linkIdeaToPost(admin.id, panel.id, "no such post")).rejects.toMatchObject({ status: 404, message: "Post not found." });
    expect(await linkIdeaToPost(admin.id, panel.id, "Voted Lighthouse")).toMatchObject({ postId: post.id, voters: 2 });
    await db.inspirationLike.deleteMany({ where: { panelId: panel.id } });
    expect((await listed(null, post.id))?.inspired_by).toEqual({ title: "Lighthouse idea", voters: 2 });
    expect([...(await loadViewerContext(voter)).votedPostIds]).toEqual([post.id]);
    expect((await loadViewerContext(tier1)).votedPostIds.size).toBe(0);
    const told = (await listUpdatesFor(voter, { since: new Date(Date.now() - 7 * DAY), limit: 50 })).filter((item) => item.postId === post.id);
    expect(told).toHaveLength(1);
    expect(digestMail("v@example.com", null, told, "token").text).toContain("- The idea you voted for is out: Voted Lighthouse");
    // Nothing about the post's versions reaches a voter who may not download it.
    expect(told[0]!.kind).toBe("NEW_POST");
    expect((await listShippedIdeas(null)).some((idea) => idea.postId === post.id && idea.voters === 2)).toBe(true);
    const page = await callRoute(libraryRoute, { path: `/library?search=${encodeURIComponent("Voted Lighthouse")}`, cookie: await sessionCookie(voter.id) });
    expect(((await page.json()) as { votedPostIds: string[] }).votedPostIds).toEqual([post.id]);
    // The viewer context names the post as voted for, and the link's access stays off.
    const context = await loadViewerContext(voter);
    expect([...context.votedPostIds]).toEqual([post.id]);
    expect(context.viewer!.voterPostIds.has(post.id)).toBe(false);
    const other = await callRoute(libraryRoute, { path: `/library?search=${encodeURIComponent("Voted Lighthouse")}`, cookie: await sessionCookie(tier1.id) });
    expect(((await other.json()) as { votedPostIds: string[] }).votedPostIds).toEqual([]);
    // A disabled post's idea is listed as shipped to admins only.
    await db.post.update({ where: { id: post.id }, data: { enabled: false } });
    expect((await listShippedIdeas(null)).some((idea) => idea.postId === post.id)).toBe(false);
    expect((await listShippedIdeas(admin)).find((idea) => idea.postId === post.id)).toMatchObject({
      postTitle: "Voted Lighthouse",
      voters: 2,
      votersGetAccess: false,
    });
    await db.post.update({ where: { id: post.id }, data: { enabled: true } });
    await linkIdeaToPost(admin.id, panel.id, null);
    expect((await listed(null, post.id))?.inspired_by).toBeNull();
  });
});

describe("voter access: the link's option to give voters the first step's access whatever their tier", () => {
  it("opens the post to the idea's voters with its first step, names it, records it as a grant, and can be switched off", async () => {
    const post = await createPost({ tiers: [], title: "Voted Windmill", firstPublishedAt: new Date(Date.now() - 3 * DAY) });
    // The first step opens in two days (five after publication), a second later still.
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 5 },
        { audience: TIER_2, after_days: 20 },
      ],
    });
    const panel = await db.inspirationPanel.create({ data: { imageUrl: "/media/x.jpg", title: "Windmill idea" } });
    const voter = await createTestUser({ currentTierId: null, tosAccepted: true });
    const bystander = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
    await db.inspirationLike.create({ data: { userId: voter.id, panelId: panel.id, kind: "LIKE" } });
    const adminCookie = await sessionCookie(admin.id);

    // The admin links the idea with the option ticked (the vote page's form, no JavaScript).
    const linked = await callRoute(votePage, {
      method: "POST",
      path: "/inspiration-vote",
      form: { intent: "link-post", id: panel.id, post: "Voted Windmill", votersGetAccess: "true" },
      cookie: adminCookie,
    });
    expect(toastOf(linked)).toContain("Idea linked to its post.");
    expect(await db.inspirationPanel.findUnique({ where: { id: panel.id }, select: { votersGetAccess: true } })).toEqual({ votersGetAccess: true });

    // Before the first step opens the voter is told when their turn comes, and may not download.
    const waiting = await checkAccess(voter.id, post.id);
    expect(waiting.access.allowed).toBe(false);
    expect(waiting.access.upcoming).toMatch(/^Opens to you as a voter on \d+ \w+ \d{4} \(in 2 days\)$/);
    expect(await refusal(authorizeDownload(voter, post.id))).toBe(403);

    // The first step opens (moved into the past): the voter, on no tier, may download; others on a lower tier may not.
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 1 },
        { audience: TIER_2, after_days: 20 },
      ],
    });
    const opened = await checkAccess(voter.id, post.id);
    expect(opened.access.allowed).toBe(true);
    expect(opened.access.summary).toMatch(/^You voted for the idea this post realizes: released to its voters on \d+ \w+ \d{4}$/);
    expect(await listed(voter, post.id)).toMatchObject({ unlocked: true });
    expect(await listed(bystander, post.id)).toMatchObject({ unlocked: false });
    expect(await refusal(authorizeDownload(bystander, post.id))).toBe(403);
    const download = await authorizeDownload(voter, post.id);
    expect(download.unlockReason).toBe("voter");

    // Only an admin may change the option: a member's form changes nothing.
    const refused = await callRoute(votePage, {
      method: "POST",
      path: "/inspiration-vote",
      form: { intent: "voter-access", id: panel.id },
      cookie: await sessionCookie(voter.id),
    });
    expect(toastOf(refused)).toContain("You need to be logged in as an admin to perform this action.");
    expect(await listed(voter, post.id)).toMatchObject({ unlocked: true });

    // Unticked and saved: the voter keeps the credit but not the access.
    const off = await callRoute(votePage, { method: "POST", path: "/inspiration-vote", form: { intent: "voter-access", id: panel.id }, cookie: adminCookie });
    expect(toastOf(off)).toContain("Voters no longer get access of their own.");
    expect(await listed(voter, post.id)).toMatchObject({ unlocked: false, inspired_by: { title: "Windmill idea", voters: 1 } });
    expect(await refusal(authorizeDownload(voter, post.id))).toBe(403);
    const audit = await db.auditEntry.findMany({ where: { targetId: panel.id }, orderBy: { createdAt: "asc" }, select: { action: true } });
    expect(audit.map((row) => row.action)).toEqual(["inspiration.panel.ship", "inspiration.panel.voter_access"]);
  });
});

describe("PUT /api/library/posts/{id}/release and /publish", () => {
  const put = async (route: typeof releaseRoute | typeof publishRoute, path: string, json: unknown, cookie?: string) =>
    callRoute(route, { method: "PUT", path, params: { id: path.split("/")[4]! }, json, cookie });

  it("builds a preset from the site's tiers, for admins only", async () => {
    const post = await createPost({});
    const path = `/api/library/posts/${post.id}/release`;
    expect((await put(releaseRoute, path, { preset: "top-first-30" })).status).toBe(401);
    expect((await put(releaseRoute, path, { preset: "top-first-30" }, await sessionCookie(tier3.id))).status).toBe(403);
    const response = await put(releaseRoute, path, { preset: "top-first-30" }, await sessionCookie(admin.id));
    expect(response.status).toBe(200);
    const { post: answered } = await readJsonBody<{ post: LibraryPost }>(response);
    expect(answered.release_steps.map((step) => [step.audience_tier_id, step.after_days])).toEqual([
      [TIER_3, 0],
      [null, 30],
    ]);
  });

  it("refuses bad input in words and changes nothing", async () => {
    const post = await createPost({});
    const cookie = await sessionCookie(admin.id);
    const path = `/api/library/posts/${post.id}/release`;
    const cases: [unknown, string][] = [
      [
        { steps: [{ audience: TIER_2, after_days: 3, opens_on: "2030-01-01T00:00:00Z" }] },
        "Each step needs either days after publication or a date, not both.",
      ],
      [{ steps: [{ audience: "nope", after_days: 3 }] }, "Unknown tier."],
      [{ steps: Array.from({ length: 9 }, () => ({ audience: "everyone", after_days: 1 })) }, "A release has at most 8 steps."],
      [{ steps: [{ audience: "everyone", opens_on: "not a date" }] }, "Please enter a valid date and time."],
    ];
    for (const [json, message] of cases) {
      const response = await put(releaseRoute, path, json, cookie);
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(await readJsonBody(response)).toMatchObject({ error: message });
    }
    expect(await db.releaseStep.count({ where: { postId: post.id } })).toBe(0);
    const past = await put(publishRoute, `/api/library/posts/${post.id}/publish`, { publish_at: "2020-01-01T00:00:00Z" }, cookie);
    expect(past.status).toBe(400);
    expect(await readJsonBody(past)).toMatchObject({ error: "Please choose a time in the future." });
    const text = await callRoute(releaseRoute, {
      method: "PUT",
      path,
      params: { id: post.id },
      body: "steps",
      headers: { "Content-Type": "text/plain" },
      cookie,
    });
    expect(text.status).toBe(415);
  });
});

describe("the library action's release forms (no JavaScript)", () => {
  it("saves custom rows and schedules, answering with a toast", async () => {
    const post = await createPost({});
    const cookie = await sessionCookie(admin.id);
    const form = (fields: [string, string][]) => {
      const data = new URLSearchParams(fields);
      return callRoute(libraryRoute, {
        method: "POST",
        path: "/library",
        body: data.toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        cookie,
      });
    };
    const saved = await form([
      ["intent", "release-steps"],
      ["postId", post.id],
      ["back", "/library"],
      ["preset", ""],
      ["step_audience", TIER_2],
      ["step_days", "0"],
      ["step_date", ""],
      ["step_audience", "everyone"],
      ["step_days", ""],
      ["step_date", "2031-02-01T18:00"],
      ["step_audience", ""],
      ["step_days", ""],
      ["step_date", ""],
    ]);
    expect(saved.status).toBe(302);
    const steps = await db.releaseStep.findMany({ where: { postId: post.id }, orderBy: { position: "asc" } });
    expect(steps.map((step) => [step.audienceTierId, step.afterDays, step.opensOn?.toISOString() ?? null])).toEqual([
      [TIER_2, 0, null],
      [null, null, "2031-02-01T18:00:00.000Z"],
    ]);
    const scheduled = await form([
      ["intent", "schedule"],
      ["postId", post.id],
      ["back", "/library"],
      ["publish_at", "2031-01-01T18:00"],
    ]);
    expect(scheduled.status).toBe(302);
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).publishAt?.toISOString()).toBe("2031-01-01T18:00:00.000Z");
    const refused = await form([
      ["intent", "schedule"],
      ["postId", post.id],
      ["back", "/library"],
      ["publish_at", "2001-01-01T18:00"],
    ]);
    expect(refused.status).toBe(302);
    expect(toastOf(refused)).toContain("Please choose a time in the future.");
    // Members are refused like every admin action.
    const member = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      body: new URLSearchParams({ intent: "publish-now", postId: post.id, back: "/library" }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      cookie: await sessionCookie(tier3.id),
    });
    expect(member.status).toBe(302);
    expect((await db.post.findUniqueOrThrow({ where: { id: post.id } })).publishAt?.toISOString()).toBe("2031-01-01T18:00:00.000Z");
  });
});

describe("the Releases view", () => {
  it("lists what opens soon and what opened, with the accounts each step newly reached", async () => {
    const post = await createPost({ title: "Timeline Post", firstPublishedAt: new Date(Date.now() - 3 * DAY) });
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 0 },
        { audience: TIER_2, after_days: 5 },
        { audience: "everyone", after_days: 90 },
      ],
    });
    const members = await db.user.groupBy({ by: ["currentTierId"], where: { restricted: false, isAdmin: false }, _count: { _all: true } });
    const count = (ids: string[]) => members.filter((row) => ids.includes(row.currentTierId ?? "")).reduce((sum, row) => sum + row._count._all, 0);
    const { upcoming, recent } = await listReleases();
    const mine = (events: typeof upcoming) => events.filter((event) => event.postId === post.id);
    // The everyone step is 87 days off: past the 60-day window.
    // Tier 2's step reaches Tier 2 only: Tier 3 had the post from the step before.
    expect(mine(upcoming).map((event) => [event.audience, event.reached])).toEqual([[TIER_2, count([TIER_2])]]);
    expect(mine(recent).map((event) => [event.audience, event.reached])).toEqual([[TIER_3, count([TIER_3])]]);
    const page = await callRoute(releasesPage, { path: "/admin/releases", cookie: await sessionCookie(admin.id) });
    expect(page.status).toBe(200);
    const member = await callRoute(releasesPage, { path: "/admin/releases", cookie: await sessionCookie(tier3.id) });
    expect(member.status).toBe(302);
  });
});
