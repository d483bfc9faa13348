// Ideas' status (docs/product.md#idea-status) through the real routes and PostgreSQL: an admin
// sets an idea's title and status (server-enforced), linking an idea to its post ships it, a
// shipped idea leaves the live round of /inspiration-vote for "Ideas that shipped" with a link to
// its post page, and the like API refuses it; one shipped as a post the visitor may not see is not
// there for them at all.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { linkIdeaToPost } from "~/models/inspiration-shipped.server";
import * as likeRoute from "~/routes/api.inspiration.panels.$id.like";
import * as panelRoute from "~/routes/api.inspiration.panels.$id";
import * as panelsRoute from "~/routes/api.inspiration.panels";
import * as votePage from "~/routes/inspiration-vote";
import { requestDocument } from "./documents";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";

const HOUR = 3_600_000;
let admin: User;
let adminCookie: string;
let voterCookie: string;
let open: string;
let shipped: string;
let postId: string;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  adminCookie = await sessionCookie(admin.id);
  voterCookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2 })).id);
  postId = (await createPost({ tiers: [TIER_2], title: "Lighthouse Set" })).id;
});

beforeEach(async () => {
  await db.inspirationLike.deleteMany({});
  await db.inspirationPanel.deleteMany({});
  await db.inspirationConfig.deleteMany({});
  await db.inspirationConfig.create({ data: { id: 1, votingOpen: true, votingEndTime: new Date(Date.now() + 24 * HOUR) } });
  open = (await db.inspirationPanel.create({ data: { imageUrl: "/media/inspiration/1.jpg", title: "Harbour at dusk" } })).id;
  shipped = (await db.inspirationPanel.create({ data: { imageUrl: "/media/inspiration/2.jpg", title: "A lighthouse" } })).id;
});

function put(id: string, json: unknown, cookie: string) {
  return callRoute(panelRoute, { method: "PUT", path: `/api/inspiration/panels/${id}`, params: { id }, json, cookie });
}

function like(id: string, cookie: string, json?: unknown) {
  return callRoute(likeRoute, { method: "POST", path: `/api/inspiration/panels/${id}/like`, params: { id }, cookie, json });
}

describe("an idea's status and title", () => {
  it("are set by an admin, and refused to anyone else", async () => {
    expect((await put(open, { imageUrl: "/x.jpg", title: "Nope", status: "planned" }, "")).status).toBe(401);
    expect((await put(open, { imageUrl: "/x.jpg", title: "Nope", status: "planned" }, voterCookie)).status).toBe(403);
    expect(await db.inspirationPanel.findUniqueOrThrow({ where: { id: open } })).toMatchObject({ title: "Harbour at dusk", status: "OPEN" });

    const planned = await put(open, { imageUrl: "/media/inspiration/1.jpg", title: "Harbour at night", status: "planned" }, adminCookie);
    expect(planned.status).toBe(200);
    expect(await readJsonBody(planned)).toMatchObject({ title: "Harbour at night", status: "planned" });
    expect(await db.inspirationPanel.findUniqueOrThrow({ where: { id: open } })).toMatchObject({ title: "Harbour at night", status: "PLANNED" });
    const listed = await readJsonBody<{ panels: { id: string; status: string }[] }>(await callRoute(panelsRoute, { path: "/api/inspiration/panels" }));
    expect(listed.panels.find((panel) => panel.id === open)?.status).toBe("planned");

    const bad = await put(open, { imageUrl: "/media/inspiration/1.jpg", status: "done" }, adminCookie);
    expect(bad.status).toBe(400);
    expect(await readJsonBody(bad)).toEqual({ error: "Status must be open, planned or shipped." });
  });

  it("is shipped exactly while the idea is linked to its post", async () => {
    const early = await put(open, { imageUrl: "/media/inspiration/1.jpg", status: "shipped" }, adminCookie);
    expect(early.status).toBe(409);
    expect(await readJsonBody(early)).toEqual({ error: "Link the idea to its post first." });
    expect((await db.inspirationPanel.findUniqueOrThrow({ where: { id: open } })).status).toBe("OPEN");

    await linkIdeaToPost(admin.id, shipped, postId);
    expect((await db.inspirationPanel.findUniqueOrThrow({ where: { id: shipped } })).status).toBe("SHIPPED");
    const reopen = await put(shipped, { imageUrl: "/media/inspiration/2.jpg", status: "open" }, adminCookie);
    expect(reopen.status).toBe(409);
    expect(await readJsonBody(reopen)).toEqual({ error: "Unlink the idea from its post to reopen it." });
    await linkIdeaToPost(admin.id, shipped, null);
    expect((await db.inspirationPanel.findUniqueOrThrow({ where: { id: shipped } })).status).toBe("OPEN");
  });
});

describe("a shipped idea", () => {
  it("cannot be liked or unliked through the API, with a clear message", async () => {
    expect((await like(shipped, voterCookie, { like: true })).status).toBe(200);
    await linkIdeaToPost(admin.id, shipped, postId);
    for (const wanted of [true, false]) {
      const refused = await like(shipped, voterCookie, { like: wanted });
      expect(refused.status).toBe(409);
      expect(await readJsonBody(refused)).toEqual({ error: "This idea has shipped, so it can no longer be liked." });
    }
    // The like it shipped with stays; an open idea can still be liked.
    expect(await db.inspirationLike.count({ where: { panelId: shipped } })).toBe(1);
    expect((await like(open, voterCookie, { like: true })).status).toBe(200);
  });

  it("is not there for a visitor who may not see its post: left out of the panels, and a like is not found", async () => {
    const hiddenPost = (await createPost({ tiers: [TIER_2], title: "Lantern Set", enabled: false })).id;
    await linkIdeaToPost(admin.id, shipped, hiddenPost);
    const listed = async (cookie: string) =>
      (await readJsonBody<{ panels: { id: string; status: string }[] }>(await callRoute(panelsRoute, { path: "/api/inspiration/panels", cookie }))).panels;
    expect((await listed("")).map((panel) => panel.id)).toEqual([open]);
    expect((await listed(voterCookie)).map((panel) => panel.id)).toEqual([open]);
    expect((await listed(adminCookie)).find((panel) => panel.id === shipped)?.status).toBe("shipped");
    for (const wanted of [true, false]) {
      const refused = await like(shipped, voterCookie, { like: wanted });
      expect(refused.status).toBe(404);
      expect(await readJsonBody(refused)).toEqual({ error: "Inspiration panel not found." });
    }
    // Once everyone sees the post, the idea is listed as shipped and refused as any shipped idea.
    await db.post.update({ where: { id: hiddenPost }, data: { enabled: true } });
    expect((await listed("")).find((panel) => panel.id === shipped)?.status).toBe("shipped");
    expect((await like(shipped, voterCookie, { like: true })).status).toBe(409);
  });

  it("leaves the live round of the vote page: shown as shipped with a link to its post, and no Like", async () => {
    await linkIdeaToPost(admin.id, shipped, postId);
    await db.inspirationPanel.update({ where: { id: open }, data: { status: "PLANNED" } });
    const html = (await (await requestDocument({ path: "/inspiration-vote", cookie: voterCookie })).text()).replace(/<!-- -->/g, "");
    const grid = /<ul class="inspiration-grid"[\s\S]*?<\/ul>/.exec(html)?.[0] ?? "";
    expect(grid).toContain(`data-panel-id="${open}"`);
    expect(grid).not.toContain(`data-panel-id="${shipped}"`);
    expect(grid).toContain('data-testid="idea-status">Planned</p>');
    expect(grid).toContain('aria-label="Like: Harbour at dusk"');
    expect(html).not.toContain('aria-label="Like: A lighthouse"');
    const section = /<section class="card shipped-ideas"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
    expect(section).toContain(`A lighthouse: <a data-discover="true" href="/library/${postId}">Lighthouse Set</a>`);

    // Without JavaScript the like form of the page is refused too, and no like is added.
    const form = await callRoute(votePage, {
      method: "POST",
      path: "/inspiration-vote",
      cookie: voterCookie,
      form: { intent: "like", panelId: shipped, like: "true" },
    });
    expect(form.status).toBe(302);
    expect(await db.inspirationLike.count({ where: { panelId: shipped } })).toBe(0);
  });

  it("shows admins the shipped card with its post link and no Like, so they can still manage it", async () => {
    await linkIdeaToPost(admin.id, shipped, postId);
    const html = (await (await requestDocument({ path: "/inspiration-vote", cookie: adminCookie })).text()).replace(/<!-- -->/g, "");
    expect(html).toContain('data-testid="idea-status">Shipped</p>');
    expect(html).toContain(`<a data-discover="true" href="/library/${postId}">See the post: Lighthouse Set</a>`);
    expect(html).not.toContain('aria-label="Like: A lighthouse"');
  });
});
