// Release plans that make sense (docs/api.md#releases): steps that go back in time, or a step
// that opens before the post's publication, are refused in words through the API and the card's
// form (no JavaScript), and nothing is saved; the listing gives the steps in the order they open.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import * as postsRoute from "~/routes/api.library.posts";
import * as postRoute from "~/routes/api.library.posts.$id";
import * as publishRoute from "~/routes/api.library.posts.$id.publish";
import * as releaseRoute from "~/routes/api.library.posts.$id.release";
import * as libraryRoute from "~/routes/library";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2, TIER_3 } from "./library-fixtures";

const DAY = 86_400_000;
const BACK_IN_TIME = "Each step must open at or after the step before it.";
const BEFORE_PUBLICATION = "A step cannot open before the post is published.";
let admin: User;
let cookie = "";

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  cookie = await sessionCookie(admin.id);
});

/** What a refusal must leave as it was: the post row, its steps and the audit log. */
async function stateOf(postId: string) {
  const [post, steps, audit] = await Promise.all([
    db.post.findUniqueOrThrow({ where: { id: postId } }),
    db.releaseStep.findMany({ where: { postId }, orderBy: { position: "asc" } }),
    db.auditEntry.count({ where: { targetId: postId } }),
  ]);
  return JSON.stringify({ post, steps, audit }, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

function toastOf(response: Response): string {
  const value = /toast-session=([^;]+)/.exec(response.headers.get("Set-Cookie") ?? "")?.[1] ?? "";
  return Buffer.from(decodeURIComponent(value).split(".")[0]!, "base64").toString("utf8");
}

async function putSteps(postId: string, json: unknown) {
  return callRoute(releaseRoute, { method: "PUT", path: `/api/library/posts/${postId}/release`, params: { id: postId }, json, cookie });
}

async function submitSteps(postId: string, rows: [audience: string, days: string, date: string][]) {
  const fields: [string, string][] = [
    ["intent", "release-steps"],
    ["postId", postId],
    ["back", "/library"],
    ["preset", ""],
  ];
  for (const [audience, days, date] of rows) fields.push(["step_audience", audience], ["step_days", days], ["step_date", date]);
  return callRoute(libraryRoute, {
    method: "POST",
    path: "/library",
    body: new URLSearchParams(fields).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    cookie,
  });
}

describe("PUT /api/library/posts/{id}/release", () => {
  it("refuses steps that go back in time, and a step before the publication, saving nothing", async () => {
    const publishedAt = new Date(Date.now() - 10 * DAY);
    const post = await createPost({ firstPublishedAt: publishedAt });
    await putSteps(post.id, { steps: [{ audience: TIER_3, after_days: 0 }] });
    const before = await stateOf(post.id);
    const cases: [unknown, string][] = [
      [
        {
          steps: [
            { audience: TIER_3, after_days: 7 },
            { audience: TIER_2, after_days: 3 },
          ],
        },
        BACK_IN_TIME,
      ],
      [
        {
          steps: [
            { audience: TIER_3, opens_on: "2031-03-01T00:00:00Z" },
            { audience: "everyone", opens_on: "2031-02-01T00:00:00Z" },
          ],
        },
        BACK_IN_TIME,
      ],
      // A date before a step given in days (40 days after a publication 10 days ago is 30 days ahead).
      [
        {
          steps: [
            { audience: TIER_3, after_days: 40 },
            { audience: "everyone", opens_on: new Date(Date.now() + 20 * DAY).toISOString() },
          ],
        },
        BACK_IN_TIME,
      ],
      [{ steps: [{ audience: TIER_3, opens_on: new Date(publishedAt.getTime() - DAY).toISOString() }] }, BEFORE_PUBLICATION],
    ];
    for (const [json, message] of cases) {
      const response = await putSteps(post.id, json);
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(await readJsonBody(response)).toEqual({ error: message });
      expect(await stateOf(post.id)).toBe(before);
    }
    // Steps at the same instant, and one at the publication itself, are a sensible plan.
    const fine = await putSteps(post.id, {
      steps: [
        { audience: TIER_3, opens_on: publishedAt.toISOString() },
        { audience: TIER_2, after_days: 5 },
        { audience: "everyone", after_days: 5 },
      ],
    });
    expect(fine.status).toBe(200);
  });

  it("refuses a publication moved after a step on a date, saving nothing", async () => {
    const post = await createPost({});
    await db.post.update({ where: { id: post.id }, data: { publishAt: new Date(Date.now() + 2 * DAY) } });
    expect((await putSteps(post.id, { steps: [{ audience: "everyone", opens_on: new Date(Date.now() + 5 * DAY).toISOString() }] })).status).toBe(200);
    const before = await stateOf(post.id);
    const moved = await callRoute(publishRoute, {
      method: "PUT",
      path: `/api/library/posts/${post.id}/publish`,
      params: { id: post.id },
      json: { publish_at: new Date(Date.now() + 9 * DAY).toISOString() },
      cookie,
    });
    expect(moved.status).toBe(400);
    expect(await readJsonBody(moved)).toEqual({ error: BEFORE_PUBLICATION });
    expect(await stateOf(post.id)).toBe(before);
  });
  it("PUT /api/library/posts/{id} refuses a first published date that breaks the saved plan, saving nothing", async () => {
    // Published ten days ago: a step a day after it, then one on a date three days from now.
    const post = await createPost({ firstPublishedAt: new Date(Date.now() - 10 * DAY) });
    const dated = new Date(Date.now() + 3 * DAY).toISOString();
    const plan = {
      steps: [
        { audience: TIER_2, after_days: 1 },
        { audience: "everyone", opens_on: dated },
      ],
    };
    expect((await putSteps(post.id, plan)).status).toBe(200);
    const before = await stateOf(post.id);
    const edit = (firstPublishedAt: Date) =>
      callRoute(postRoute, {
        method: "PUT",
        path: `/api/library/posts/${post.id}`,
        params: { id: post.id },
        json: { first_published_at: firstPublishedAt.toISOString() },
        cookie,
      });
    for (const [moved, message] of [
      // The day-counted step moves to 3.5 days from now, after the dated one.
      [new Date(Date.now() + 2.5 * DAY), BACK_IN_TIME],
      // Both now open before a publication four days from now.
      [new Date(Date.now() + 4 * DAY), BEFORE_PUBLICATION],
    ] as const) {
      const response = await edit(moved);
      expect(response.status).toBe(400);
      expect(await readJsonBody(response)).toEqual({ error: message });
      expect(await stateOf(post.id)).toBe(before);
    }
    // A move the plan allows is saved, and the day-counted step follows it.
    const allowed = new Date(Date.now() - 2 * DAY);
    expect((await edit(allowed)).status).toBe(200);
    const steps = await db.releaseStep.findMany({ where: { postId: post.id }, orderBy: { position: "asc" } });
    expect(steps[0]!.opensAt.getTime()).toBe(allowed.getTime() + DAY);
  });
});

describe("the card's release steps form (no JavaScript)", () => {
  it("refuses the same plans with the same words in its toast, saving nothing", async () => {
    const publishedAt = new Date(Date.now() - 10 * DAY);
    const post = await createPost({ firstPublishedAt: publishedAt });
    const before = await stateOf(post.id);
    const backwards = await submitSteps(post.id, [
      [TIER_3, "7", ""],
      [TIER_2, "3", ""],
    ]);
    expect(backwards.status).toBe(302);
    expect(toastOf(backwards)).toContain(BACK_IN_TIME);
    expect(await stateOf(post.id)).toBe(before);
    const early = await submitSteps(post.id, [[TIER_3, "", new Date(publishedAt.getTime() - DAY).toISOString().slice(0, 16)]]);
    expect(toastOf(early)).toContain(BEFORE_PUBLICATION);
    expect(await stateOf(post.id)).toBe(before);
    const saved = await submitSteps(post.id, [
      [TIER_3, "0", ""],
      ["everyone", "30", ""],
    ]);
    expect(toastOf(saved)).toContain("Release steps saved.");
    expect(await db.releaseStep.count({ where: { postId: post.id } })).toBe(2);
  });
});

describe("the listing", () => {
  it("gives release_steps in the order they open, whatever order they were stored in", async () => {
    const post = await createPost({ paid: true, tiers: [TIER_3], firstPublishedAt: new Date(Date.now() - DAY) });
    // A plan stored before the rule (positions out of time order).
    await db.releaseStep.createMany({
      data: [
        { postId: post.id, position: 0, audienceTierId: null, tierIds: [], afterDays: 60, opensAt: new Date(Date.now() + 59 * DAY) },
        { postId: post.id, position: 1, audienceTierId: TIER_2, tierIds: [TIER_2, TIER_3], afterDays: 7, opensAt: new Date(Date.now() + 6 * DAY) },
      ],
    });
    await db.post.update({ where: { id: post.id }, data: { updatedAt: new Date() } });
    const response = await callRoute(postsRoute, { path: "/api/library/posts", cookie });
    const { posts } = await readJsonBody<{ posts: { postId: string; release_steps: { audience_tier_id: string | null; opens_at: string }[] }[] }>(response);
    const steps = posts.find((item) => item.postId === post.id)!.release_steps;
    expect(steps.map((step) => step.audience_tier_id)).toEqual([TIER_2, null]);
  });
});
