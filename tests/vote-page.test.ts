// The vote page's single read (loadVotePage, the database function vote_page) against the model
// functions it stands for: the panels as each visitor sees them, what they may do, and the
// shipped ideas they may see, in every state the rules tell apart.
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { listInspirationPanels, loadVotePage } from "~/models/inspiration-page.server";
import { linkIdeaToPost, listShippedIdeas } from "~/models/inspiration-shipped.server";
import { inLiveRound, voterRights, LOGIN_TO_LIKE_MESSAGE, TIER_TOO_LOW_MESSAGE } from "~/models/inspiration.server";
import * as page from "~/routes/inspiration-vote";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";

const HOUR = 3_600_000;

let admin: User;
let voter: User;
let patreonVoter: User;
let tierOne: User;

async function expectSameAsModels(visitor: User | null, now = new Date()) {
  const [separate, rights, shipped] = await Promise.all([listInspirationPanels(visitor, now), voterRights(visitor), listShippedIdeas(visitor, now)]);
  const together = await loadVotePage(visitor, now);
  expect(together).toEqual({ ...separate, rights, shipped });
  return together;
}

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true });
  voter = await createTestUser({ currentTierId: TIER_2 });
  patreonVoter = await createTestUser({ currentTierId: TIER_2, patreonId: "patreon-voter" });
  tierOne = await createTestUser({ currentTierId: TIER_1 });
});

describe("the vote page in one read", () => {
  it("creates the config with its defaults when there is none yet, as the models do", async () => {
    expect(await db.inspirationConfig.count()).toBe(0);
    const { config, panels, rights, shipped } = await loadVotePage(null);
    expect(config).toMatchObject({ id: 1, title: "Inspiration Vote", mode: "NORMAL", votingOpen: false });
    expect(await db.inspirationConfig.count()).toBe(1);
    expect({ panels, rights, shipped }).toEqual({ panels: [], rights: { canLike: false, canPatreonLike: false, reason: LOGIN_TO_LIKE_MESSAGE }, shipped: [] });
  });

  it("gives each visitor the panels in order with their own likes, and what they may do", async () => {
    await db.inspirationConfig.update({ where: { id: 1 }, data: { votingOpen: true, votingEndTime: new Date(Date.now() + HOUR) } });
    const created = new Date(Date.now() - HOUR);
    const panels = [];
    for (const [index, title] of ["First", null, "Third"].entries()) {
      panels.push(
        await db.inspirationPanel.create({ data: { imageUrl: `/media/inspiration/${index}.jpg`, title, createdAt: new Date(created.getTime() + index) } }),
      );
    }
    await db.inspirationLike.createMany({
      data: [
        { userId: voter.id, panelId: panels[1]!.id, kind: "LIKE" },
        { userId: patreonVoter.id, panelId: panels[1]!.id, kind: "PATREON" },
        { userId: patreonVoter.id, panelId: panels[2]!.id, kind: "LIKE" },
      ],
    });
    const seen = await expectSameAsModels(patreonVoter);
    expect(seen.panels.map((panel) => [panel.title, panel.likes, panel.userHasLiked, panel.userHasPatreonLiked])).toEqual([
      ["First", 0, false, false],
      [null, 2, false, true],
      ["Third", 1, true, false],
    ]);
    expect(seen.rights).toEqual({ canLike: true, canPatreonLike: true, reason: null });
    expect((await expectSameAsModels(voter)).rights).toEqual({ canLike: true, canPatreonLike: false, reason: null });
    expect((await expectSameAsModels(tierOne)).rights).toEqual({ canLike: false, canPatreonLike: false, reason: TIER_TOO_LOW_MESSAGE });
    expect((await expectSameAsModels(admin)).rights.reason).toBe(TIER_TOO_LOW_MESSAGE);
    await expectSameAsModels(null);
  });

  it("hides the counts and shuffles per visitor while a randomized vote runs, and shows them once it ends", async () => {
    await db.inspirationConfig.update({ where: { id: 1 }, data: { mode: "RANDOMIZED" } });
    const running = await expectSameAsModels(voter);
    expect(running.panels.every((panel) => panel.likes === null)).toBe(true);
    await expectSameAsModels(patreonVoter);
    await expectSameAsModels(null);
    // An hour and a minute later the vote has ended by its end time: the counts show again.
    const ended = await expectSameAsModels(voter, new Date(Date.now() + HOUR + 60_000));
    expect(ended.panels.map((panel) => panel.likes)).toEqual([0, 2, 1]);
  });

  it("lists a shipped idea to everyone while its post is visible, and to admins only while it is disabled or scheduled", async () => {
    const [panel] = await db.inspirationPanel.findMany({ orderBy: { createdAt: "asc" } });
    const post = await createPost({ tiers: [TIER_2], title: "Shipped Idea Post" });
    await linkIdeaToPost(admin.id, panel!.id, post.id, { votersGetAccess: true });
    const idea = (page: { panels: { id: string; status: string }[] }) => page.panels.find((item) => item.id === panel!.id)?.status;
    const listed = await expectSameAsModels(null);
    expect(listed.shipped).toEqual([{ panelId: panel!.id, title: "First", postId: post.id, postTitle: "Shipped Idea Post", voters: 0, votersGetAccess: true }]);
    expect(idea(listed)).toBe("shipped");
    // Disabled or scheduled, the idea is not there at all for those who may not see the post.
    await db.post.update({ where: { id: post.id }, data: { enabled: false } });
    expect(await expectSameAsModels(voter)).toMatchObject({ shipped: [] });
    expect(idea(await expectSameAsModels(voter))).toBeUndefined();
    expect((await expectSameAsModels(admin)).shipped).toHaveLength(1);
    expect(idea(await expectSameAsModels(admin))).toBe("shipped");
    await db.post.update({ where: { id: post.id }, data: { enabled: true, publishAt: new Date(Date.now() + HOUR) } });
    expect((await expectSameAsModels(voter)).shipped).toEqual([]);
    expect(idea(await expectSameAsModels(null))).toBeUndefined();
    const later = await expectSameAsModels(voter, new Date(Date.now() + 2 * HOUR));
    expect(later.shipped).toHaveLength(1);
    expect(idea(later)).toBe("shipped");
    await db.post.update({ where: { id: post.id }, data: { publishAt: null } });
  });

  it("is what the page's loader answers", async () => {
    const response = await callRoute(page, { path: "/inspiration-vote", cookie: await sessionCookie(patreonVoter.id) });
    const data = (await response.json()) as { panels: unknown[]; rights: unknown; shipped: unknown[] };
    const read = await loadVotePage(patreonVoter);
    expect(data.rights).toEqual(read.rights);
    expect(data.shipped).toEqual(read.shipped);
    // The page shows the live round: a shipped idea is listed under "Ideas that shipped" instead.
    expect(read.panels.some((panel) => !inLiveRound(panel))).toBe(true);
    expect(data.panels).toHaveLength(read.panels.filter(inLiveRound).length);
  });
});
