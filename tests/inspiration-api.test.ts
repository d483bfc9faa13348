// The inspiration vote through the real `/api` routes against PostgreSQL: every like rule,
// concurrency, hidden counts and per-visitor order, and the admin endpoints.
import { db } from "~/db.server";
import * as configRoute from "~/routes/api.inspiration.config";
import * as patreonLikeRoute from "~/routes/api.inspiration.panels.$id.patreon-like";
import * as likeRoute from "~/routes/api.inspiration.panels.$id.like";
import * as panelRoute from "~/routes/api.inspiration.panels.$id";
import * as panelsRoute from "~/routes/api.inspiration.panels";
import * as resetRoute from "~/routes/api.inspiration.reset-likes";
import * as titleRoute from "~/routes/api.inspiration.title";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

type PanelJson = { id: string; imageUrl: string; likes: number | null; userHasLiked: boolean; userHasPatreonLiked: boolean };
type ListJson = { panels: PanelJson[]; config: { mode: string; votingOpen: boolean; votingEndTime: string | null; title: string } };

const HOUR = 60 * 60 * 1000;
let adminCookie: string;
let voterCookie: string;
let patronCookie: string;
let lowTierCookie: string;
let noTierCookie: string;
let panelIds: string[];

beforeAll(async () => {
  await db.tier.createMany({
    data: [
      { id: "8824971", title: "Tier 1", canVote: false },
      { id: "8825009", title: "Tier 2", canVote: true },
    ],
    // Migration 0030 holds these ids already.
    skipDuplicates: true,
  });
  adminCookie = await sessionCookie((await createTestUser({ isAdmin: true })).id);
  voterCookie = await sessionCookie((await createTestUser({ currentTierId: "8825009" })).id);
  patronCookie = await sessionCookie((await createTestUser({ currentTierId: "8825009", patreonId: "patron-1" })).id);
  lowTierCookie = await sessionCookie((await createTestUser({ currentTierId: "8824971", patreonId: "patron-2" })).id);
  noTierCookie = await sessionCookie((await createTestUser()).id);
});

beforeEach(async () => {
  await db.inspirationLike.deleteMany({});
  await db.inspirationPanel.deleteMany({});
  await db.inspirationConfig.deleteMany({});
  await db.inspirationConfig.create({ data: { id: 1, votingOpen: true, votingEndTime: new Date(Date.now() + 24 * HOUR) } });
  panelIds = [];
  for (let position = 1; position <= 6; position++) {
    panelIds.push((await db.inspirationPanel.create({ data: { imageUrl: `/media/inspiration/${position}.jpg`, title: `Idea ${position}` } })).id);
  }
});

function like(id: string, cookie: string, json?: unknown) {
  return callRoute(likeRoute, { method: "POST", path: `/api/inspiration/panels/${id}/like`, params: { id }, cookie, json });
}

function patreonLike(id: string, cookie: string, json?: unknown) {
  return callRoute(patreonLikeRoute, { method: "POST", path: `/api/inspiration/panels/${id}/patreon-like`, params: { id }, cookie, json });
}

async function list(cookie = ""): Promise<ListJson> {
  return readJsonBody<ListJson>(await callRoute(panelsRoute, { path: "/api/inspiration/panels", cookie }));
}

describe("liking", () => {
  it("refuses a guest with 401 and the spec's message", async () => {
    const response = await like(panelIds[0]!, "");
    expect(response.status).toBe(401);
    expect(await readJsonBody(response)).toEqual({ error: "You must be logged in to like an inspiration." });
    expect(await db.inspirationLike.count()).toBe(0);
  });

  it("refuses users without a voting tier (no tier, and a tier without canVote)", async () => {
    for (const cookie of [noTierCookie, lowTierCookie]) {
      const response = await like(panelIds[0]!, cookie);
      expect(response.status).toBe(403);
      expect(await readJsonBody(response)).toEqual({ error: "You must have at least a tier 2 subscription." });
    }
    expect(await db.inspirationLike.count()).toBe(0);
  });

  it("refuses when the admin closed voting, and when the end time has passed though the flag is on", async () => {
    await db.inspirationConfig.update({ where: { id: 1 }, data: { votingOpen: false } });
    const closedByFlag = await like(panelIds[0]!, voterCookie);
    expect(closedByFlag.status).toBe(403);
    expect(await readJsonBody(closedByFlag)).toEqual({ error: "Voting is closed. You cannot like or unlike panels." });

    await db.inspirationConfig.update({ where: { id: 1 }, data: { votingOpen: true, votingEndTime: new Date(Date.now() - 1000) } });
    const closedByTime = await like(panelIds[0]!, voterCookie);
    expect(closedByTime.status).toBe(403);
    expect(await readJsonBody(closedByTime)).toEqual({ error: "Voting is closed. You cannot like or unlike panels." });
    expect((await list()).config.votingOpen).toBe(false);
    expect(await db.inspirationLike.count()).toBe(0);
  });

  it("lets a voting-tier user like and unlike (toggle), and reports it", async () => {
    const id = panelIds[2]!;
    const liked = await like(id, voterCookie);
    expect(liked.status).toBe(200);
    expect(await readJsonBody(liked)).toMatchObject({ id, likes: 1, userHasLiked: true, userHasPatreonLiked: false });
    const seen = (await list(voterCookie)).panels.find((panel) => panel.id === id)!;
    expect(seen).toMatchObject({ likes: 1, userHasLiked: true });
    // Others see the count but not as their own like.
    expect((await list()).panels.find((panel) => panel.id === id)).toMatchObject({ likes: 1, userHasLiked: false });

    const unliked = await like(id, voterCookie);
    expect(await readJsonBody(unliked)).toMatchObject({ likes: 0, userHasLiked: false });
    expect(await db.inspirationLike.count()).toBe(0);

    // An explicit state is idempotent.
    await like(id, voterCookie, { like: true });
    await like(id, voterCookie, { like: true });
    expect(await db.inspirationLike.count({ where: { panelId: id } })).toBe(1);
    await like(id, voterCookie, { like: false });
    expect(await db.inspirationLike.count({ where: { panelId: id } })).toBe(0);
  });

  it("patreon-like is a second, separate vote for linked members on a voting tier; likes counts both", async () => {
    const id = panelIds[0]!;
    const refused = await patreonLike(id, voterCookie);
    expect(refused.status).toBe(403);
    expect((await readJsonBody<{ error: string }>(refused)).error).toBe("Link your Patreon membership to give a Patreon like.");
    const lowTier = await patreonLike(id, lowTierCookie);
    expect(lowTier.status).toBe(403);
    expect((await readJsonBody<{ error: string }>(lowTier)).error).toBe("You must have at least a tier 2 subscription.");

    await like(id, patronCookie);
    const both = await patreonLike(id, patronCookie);
    expect(both.status).toBe(200);
    expect(await readJsonBody(both)).toMatchObject({ likes: 2, userHasLiked: true, userHasPatreonLiked: true });
    // The listing agrees: both kinds counted together, each of the patron's own likes marked.
    expect((await list(patronCookie)).panels.find((panel) => panel.id === id)).toMatchObject({ likes: 2, userHasLiked: true, userHasPatreonLiked: true });
    expect((await list()).panels.find((panel) => panel.id === id)).toMatchObject({ likes: 2, userHasLiked: false, userHasPatreonLiked: false });
    const removed = await readJsonBody<PanelJson>(await patreonLike(id, patronCookie));
    expect(removed).toMatchObject({ likes: 1, userHasLiked: true, userHasPatreonLiked: false });
  });

  it("counts 50 concurrent likes from one user once", async () => {
    const id = panelIds[1]!;
    const responses = await Promise.all(Array.from({ length: 50 }, () => like(id, voterCookie, { like: true })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(await db.inspirationLike.count({ where: { panelId: id } })).toBe(1);
    expect((await list()).panels.find((panel) => panel.id === id)!.likes).toBe(1);

    // Concurrent toggles never produce a second vote either.
    await Promise.all(Array.from({ length: 20 }, () => like(panelIds[3]!, voterCookie)));
    expect(await db.inspirationLike.count({ where: { panelId: panelIds[3]! } })).toBeLessThanOrEqual(1);
  });

  it("answers 404 for an unknown panel", async () => {
    const response = await like("nope", voterCookie);
    expect(response.status).toBe(404);
  });
});

describe("randomized mode", () => {
  it("hides counts and shuffles the order per visitor, stable for them, while voting is open", async () => {
    await like(panelIds[0]!, voterCookie);
    await db.inspirationConfig.update({ where: { id: 1 }, data: { mode: "RANDOMIZED" } });
    const mine = await list(voterCookie);
    expect(mine.config.mode).toBe("randomized");
    expect(mine.panels.every((panel) => panel.likes === null)).toBe(true);
    expect(mine.panels.find((panel) => panel.id === panelIds[0])!.userHasLiked).toBe(true);
    // Stable for the same visitor.
    expect((await list(voterCookie)).panels.map((panel) => panel.id)).toEqual(mine.panels.map((panel) => panel.id));
    // Shuffled: not everyone gets creation order (several visitors, so this cannot pass by luck).
    const orders = new Set<string>();
    for (const cookie of [voterCookie, patronCookie, lowTierCookie, noTierCookie, adminCookie]) {
      orders.add((await list(cookie)).panels.map((panel) => panel.id).join(","));
    }
    expect(orders.size).toBeGreaterThan(1);

    // Guests, who cannot vote, all share one stable order and get no cookie (their page may be
    // kept by a CDN).
    const first = await callRoute(panelsRoute, { path: "/api/inspiration/panels" });
    expect(first.headers.get("Set-Cookie")).toBeNull();
    const firstOrder = (await readJsonBody<ListJson>(first)).panels.map((panel) => panel.id);
    const again = await callRoute(panelsRoute, { path: "/api/inspiration/panels" });
    expect((await readJsonBody<ListJson>(again)).panels.map((panel) => panel.id)).toEqual(firstOrder);

    // Once voting is closed the counts show again.
    await db.inspirationConfig.update({ where: { id: 1 }, data: { votingOpen: false } });
    const closed = await list(voterCookie);
    expect(closed.panels.map((panel) => panel.id)).toEqual(panelIds);
    expect(closed.panels[0]!.likes).toBe(1);
  });
});

describe("admin endpoints", () => {
  const adminCalls = () => [
    () => callRoute(titleRoute, { method: "POST", path: "/api/inspiration/title", json: { title: "X" }, cookie: "" }),
    () => callRoute(configRoute, { method: "POST", path: "/api/inspiration/config", json: { mode: "randomized" }, cookie: "" }),
    () => callRoute(resetRoute, { method: "POST", path: "/api/inspiration/reset-likes", cookie: "" }),
    () => callRoute(panelsRoute, { method: "POST", path: "/api/inspiration/panels", json: { imageUrl: "/x.jpg" }, cookie: "" }),
    () =>
      callRoute(panelRoute, {
        method: "PUT",
        path: `/api/inspiration/panels/${panelIds[0]}`,
        params: { id: panelIds[0]! },
        json: { imageUrl: "/y.jpg" },
        cookie: "",
      }),
    () => callRoute(panelRoute, { method: "DELETE", path: `/api/inspiration/panels/${panelIds[0]}`, params: { id: panelIds[0]! }, cookie: "" }),
  ];

  it("refuses guests with 401 and non-admins with 403, changing nothing", async () => {
    for (const call of adminCalls()) expect((await call()).status).toBe(401);
    const asUser = [
      callRoute(titleRoute, { method: "POST", path: "/api/inspiration/title", json: { title: "X" }, cookie: voterCookie }),
      callRoute(configRoute, { method: "POST", path: "/api/inspiration/config", json: { mode: "randomized" }, cookie: voterCookie }),
      callRoute(resetRoute, { method: "POST", path: "/api/inspiration/reset-likes", cookie: voterCookie }),
      callRoute(panelsRoute, { method: "POST", path: "/api/inspiration/panels", json: { imageUrl: "/x.jpg" }, cookie: voterCookie }),
      callRoute(panelRoute, { method: "DELETE", path: `/api/inspiration/panels/${panelIds[0]}`, params: { id: panelIds[0]! }, cookie: voterCookie }),
    ];
    for (const response of await Promise.all(asUser)) expect(response.status).toBe(403);
    expect(await db.inspirationPanel.count()).toBe(6);
    expect(await db.inspirationConfig.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({ title: "Inspiration Vote", mode: "NORMAL" });
  });

  it("sets the title, the config, creates/edits/deletes panels and resets likes, each audited", async () => {
    const title = await callRoute(titleRoute, { method: "POST", path: "/api/inspiration/title", json: { title: "  Spring vote " }, cookie: adminCookie });
    expect(await readJsonBody(title)).toEqual({ title: "Spring vote" });
    expect(await readJsonBody(await callRoute(titleRoute, { path: "/api/inspiration/title" }))).toEqual({ title: "Spring vote" });
    const blank = await callRoute(titleRoute, { method: "POST", path: "/api/inspiration/title", json: { title: " " }, cookie: adminCookie });
    expect(blank.status).toBe(400);

    const end = new Date(Date.now() + 3 * HOUR);
    const config = await callRoute(configRoute, {
      method: "POST",
      path: "/api/inspiration/config",
      json: { mode: "randomized", votingOpen: true, votingEndTime: end.toISOString(), title: "Summer vote" },
      cookie: adminCookie,
    });
    expect(config.status).toBe(200);
    expect((await list()).config).toEqual({ mode: "randomized", votingOpen: true, votingEndTime: end.toISOString(), title: "Summer vote" });
    const badTime = await callRoute(configRoute, { method: "POST", path: "/api/inspiration/config", json: { votingEndTime: "soon" }, cookie: adminCookie });
    expect(badTime.status).toBe(400);

    const missing = await callRoute(panelsRoute, { method: "POST", path: "/api/inspiration/panels", json: { imageUrl: "  " }, cookie: adminCookie });
    expect(missing.status).toBe(400);
    expect(await readJsonBody(missing)).toEqual({ error: "Image URL is required." });
    const created = await callRoute(panelsRoute, {
      method: "POST",
      path: "/api/inspiration/panels",
      json: { imageUrl: "https://img.test/a.jpg", title: "New" },
      cookie: adminCookie,
    });
    expect(created.status).toBe(201);
    const newId = (await readJsonBody<PanelJson>(created)).id;
    const edited = await callRoute(panelRoute, {
      method: "PUT",
      path: `/api/inspiration/panels/${newId}`,
      params: { id: newId },
      json: { imageUrl: "/media/b.jpg" },
      cookie: adminCookie,
    });
    expect(await readJsonBody(edited)).toMatchObject({ id: newId, imageUrl: "/media/b.jpg", title: "New" });
    const deleted = await callRoute(panelRoute, { method: "DELETE", path: `/api/inspiration/panels/${newId}`, params: { id: newId }, cookie: adminCookie });
    expect(deleted.status).toBe(200);
    expect(await db.inspirationPanel.findUnique({ where: { id: newId } })).toBeNull();

    await like(panelIds[0]!, patronCookie);
    await patreonLike(panelIds[0]!, patronCookie);
    await like(panelIds[1]!, voterCookie);
    const reset = await callRoute(resetRoute, { method: "POST", path: "/api/inspiration/reset-likes", cookie: adminCookie });
    expect(await readJsonBody(reset)).toMatchObject({ removed: 3 });
    expect(await db.inspirationLike.count()).toBe(0);

    const actions = (await db.auditEntry.findMany({ where: { action: { startsWith: "inspiration." } } })).map((entry) => entry.action).sort();
    expect(actions).toEqual(
      [
        "inspiration.config",
        "inspiration.config",
        "inspiration.panel.create",
        "inspiration.panel.delete",
        "inspiration.panel.update",
        "inspiration.reset_likes",
      ].sort(),
    );
  });

  it("creates the config with its defaults when the row is missing", async () => {
    await db.inspirationConfig.deleteMany({});
    const body = await list();
    expect(body.config).toEqual({ mode: "normal", votingOpen: false, votingEndTime: null, title: "Inspiration Vote" });
  });
});
