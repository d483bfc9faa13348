// The release ladder and the action rule as whole documents (docs/design.md#the-ladder-and-the-action-rule):
// a post in a cascade shows every step with the viewer's own marked, on its page and in the
// library's list view; a supporter whose turn is coming sees its date first and the upgrade as a
// quiet link, a fan is offered the tier that has the post now.
import { beforeAll, describe, expect, it } from "vitest";
import type { User } from "~/generated/prisma/client";
import { setReleaseSteps } from "~/models/release.server";
import { formatDay } from "~/utils/dates";
import { requestDocument } from "./documents";
import { createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

const NSFW = "nsfwAccepted=dHJ1ZQ%3D%3D";
const DAY = 86_400_000;

/** The document, without React's text separators (`<!-- -->`). */
async function html(path: string, cookie?: string): Promise<string> {
  const response = await requestDocument({ path, cookie: cookie ? `${cookie}; ${NSFW}` : NSFW });
  expect(response.status).toBe(200);
  return (await response.text()).replace(/<!-- -->/g, "");
}

/** The ladder's text as a reader hears it, tags and React's comment markers left out. */
function ladderText(page: string): string | null {
  const list = /<ol class="release-ladder"[^>]*>([\s\S]*?)<\/ol>/.exec(page);
  return list
    ? list[1]!
        .replace(/<!-- -->/g, "")
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim()
    : null;
}

function day(at: number): string {
  return formatDay(at, { timeZone: "UTC" });
}

let admin: User;
let tier2Cookie: string;
let fanCookie: string;
let postId: string;
let published: number;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  tier2Cookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2, tosAccepted: true })).id);
  fanCookie = await sessionCookie((await createTestUser({ tosAccepted: true })).id);
  published = Date.now() - 1 * DAY;
  const post = await createPost({ tiers: [], kofiId: null, title: "Ladder Pack", firstPublishedAt: new Date(published) });
  postId = post.id;
  await setReleaseSteps(admin, post.id, {
    steps: [
      { audience: TIER_3, after_days: 0 },
      { audience: TIER_2, after_days: 3 },
      { audience: TIER_1, after_days: 10 },
      { audience: "everyone", after_days: 60 },
    ],
  });
});

describe("the ladder on the post page", () => {
  it("shows a Tier 2 supporter the whole ladder with their step marked, their date first and the upgrade quietly", async () => {
    const page = await html(`/library/${postId}`, tier2Cookie);
    expect(ladderText(page)).toBe(
      `Tier 3 now · Tier 2 on ${day(published + 3 * DAY)} (your step) · Tier 1 on ${day(published + 10 * DAY)} · Free on ${day(published + 60 * DAY)}`,
    );
    expect(page).toMatch(/<li class="release-rung release-rung-yours"><span[^>]*>[^<]*<\/span><strong>Tier 2 on/);
    expect(page).toMatch(/<p class="post-upcoming post-upcoming-lead" data-testid="release-upcoming"><strong>Opens to your Tier 2 on /);
    expect(page).toContain('class="button-quiet" href="https://www.patreon.com/');
    expect(page).toMatch(/class="button-quiet"[^>]*>Get it now with Tier 3<\/a>/);
    // No primary button pushes them to pay for what is theirs in two days.
    expect(page).not.toContain("Subscribe (");
  });

  it("shows a fan the ladder with the free step as theirs and offers the tier that has it now", async () => {
    const page = await html(`/library/${postId}`, fanCookie);
    expect(ladderText(page)).toBe(
      `Tier 3 now · Tier 2 on ${day(published + 3 * DAY)} · Tier 1 on ${day(published + 10 * DAY)} · Free on ${day(published + 60 * DAY)} (your step)`,
    );
    // Their free day is two months off: the date leads, the tier that has it now is the secondary.
    expect(page).toMatch(/<strong>Free for everyone on /);
    expect(page).toMatch(/>Get it now with Tier 3<\/a>/);
  });

  it("offers a fan the cheapest tier that has the post now when nothing is coming for them", async () => {
    const post = await createPost({ tiers: [], kofiId: null, title: "Paid Ladder", firstPublishedAt: new Date(published) });
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_3, after_days: 0 },
        { audience: TIER_1, after_days: 10 },
      ],
    });
    const page = await html(`/library/${post.id}`, fanCookie);
    expect(ladderText(page)).toBe(`Tier 3 now · Tier 1 on ${day(published + 10 * DAY)}`);
    // The tier's price follows when it is known ("Subscribe (Tier 3) · $10/month").
    expect(page).toMatch(/<a class="button" href="[^"]*\/join"[^>]*>Subscribe \(Tier 3\)( · [^<]+\/month)?<\/a>/);
    expect(page).not.toContain("release-upcoming");
  });
});

describe("the ladder in the library's list view", () => {
  it("marks the viewer's step on the row, and the row's action is the quiet upgrade", async () => {
    const page = await html(`/library?layout=list&search=Ladder%20Pack`, tier2Cookie);
    expect(ladderText(page)).toContain(`Tier 2 on ${day(published + 3 * DAY)} (your step)`);
    expect(page).toMatch(/<div class="post-row-action"><a class="button-quiet"[^>]*>Get it now with Tier 3<\/a><\/div>/);
  });

  it("shows the ladder on the grid's card too", async () => {
    const page = await html(`/library?search=Ladder%20Pack`, fanCookie);
    expect(page).toContain('data-testid="post-card"');
    expect(ladderText(page)).toContain("(your step)");
  });
});
