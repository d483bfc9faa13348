// Requirements, tags and prices (docs/product.md#requirements, #tags, #prices), as whole documents
// and through /api: a requirement the viewer lacks is said with the required post's own access
// line and warns on download without blocking; a required post the viewer may not see is never
// named; the tag filter lives in the address; Subscribe and shop buttons carry their prices; the
// release plan warns when a step opens a post before its audience can get what it requires.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { createTag, setPostTags } from "~/models/catalog.server";
import { releaseRequirementWarnings, setPostRequirements } from "~/models/post-requirements.server";
import { setReleaseSteps } from "~/models/release.server";
import * as downloadRoute from "~/routes/api.download.$postId";
import * as postApi from "~/routes/api.library.posts.$id";
import * as requirementsApi from "~/routes/api.admin.posts.$id.requirements";
import * as tagsApi from "~/routes/api.admin.posts.$id.tags";
import { requestDocument } from "./documents";
import { callRoute, createTestUser, queriesDuring, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";

const NSFW = "nsfwAccepted=dHJ1ZQ%3D%3D";

async function html(path: string, cookie?: string): Promise<string> {
  const response = await requestDocument({ path, cookie: cookie ? `${cookie}; ${NSFW}` : NSFW });
  expect(response.status).toBe(200);
  return (await response.text()).replace(/<!-- -->/g, "");
}

/** The text of one post's card (the page's or the library's), as a sighted reader sees it. */
function cardOf(page: string, postId: string): string {
  const card = new RegExp(`<article[^>]*data-post-id="${postId}"[^>]*>([\\s\\S]*?)</article>`).exec(page);
  expect(card, `card of ${postId}`).not.toBeNull();
  return card![1]!;
}

function requirementLines(card: string): string[] {
  const list = /<ul class="post-requirements"[^>]*>([\s\S]*?)<\/ul>/.exec(card);
  if (!list) return [];
  return [...list[1]!.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((item) =>
    item[1]!
      .replace(/<span class="visually-hidden">[^<]*<\/span>/g, "")
      .replace(/<[^>]+>/g, "")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

let admin: User;
let tier1: User;
let tier2: User;
let tier1Cookie: string;
let tier2Cookie: string;
let fanCookie: string;
let basePack: { id: string };
let addon: { id: string };
let secret: { id: string };
let secretUser: { id: string };

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  tier1 = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
  tier2 = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  tier1Cookie = await sessionCookie(tier1.id);
  tier2Cookie = await sessionCookie(tier2.id);
  fanCookie = await sessionCookie((await createTestUser({ tosAccepted: true })).id);
  basePack = await createPost({ title: "Base Pack", tiers: [TIER_2], kofiId: null, version: "V2.1" });
  // Tier 1 and Tier 2 both get the add-on; only Tier 2 gets the base pack.
  addon = await createPost({ title: "Hair Addon", tiers: [TIER_1, TIER_2], kofiId: null });
  await setPostRequirements(admin.id, addon.id, {
    requirements: [
      { kind: "post", postId: basePack.id, minVersion: "V2" },
      { kind: "item", name: "Script Extender", url: "https://example.com/extender" },
    ],
  });
  // A disabled post required by a visible one: never named to those who may not see it.
  secret = await createPost({ title: "Secret Sequel Pack", tiers: [TIER_1], kofiId: null, enabled: false });
  secretUser = await createPost({ title: "Teaser Outfit", tiers: [TIER_1], kofiId: null });
  await setPostRequirements(admin.id, secretUser.id, { requirements: [{ kind: "post", postId: secret.id, minVersion: null }] });
});

describe("a requirement the viewer lacks", () => {
  it("is listed on the card and the page with the required post's access line, and Download warns", async () => {
    const library = cardOf(await html("/library", tier1Cookie), addon.id);
    expect(requirementLines(library)).toEqual(["Requires Base Pack V2 or later · unlocked by Tier 2", "Requires Script Extender (outside this site)"]);
    expect(library).toContain('data-testid="requirement-notice"');
    expect(library).toContain("You don&#x27;t have Base Pack yet.");
    const page = cardOf(await html(`/library/${addon.id}`, tier1Cookie), addon.id);
    expect(requirementLines(page)).toEqual(["Requires Base Pack V2 or later · unlocked by Tier 2", "Requires Script Extender (outside this site)"]);
    expect(page).toContain('href="https://example.com/extender"');
  });

  it("says 'you have it' to a viewer who may download the required post, with no warning", async () => {
    const card = cardOf(await html("/library", tier2Cookie), addon.id);
    expect(requirementLines(card)[0]).toBe("Requires Base Pack V2 or later · you have it");
    expect(card).not.toContain('data-testid="requirement-notice"');
  });

  it("does not block the download, and names the missing post in the response", async () => {
    const lacking = await callRoute(downloadRoute, { path: `/api/download/${addon.id}`, params: { postId: addon.id }, cookie: tier1Cookie });
    expect(lacking.status).toBe(200);
    expect(lacking.headers.get("X-Missing-Requirements")).toBe(basePack.id);
    await lacking.arrayBuffer();
    const having = await callRoute(downloadRoute, { path: `/api/download/${addon.id}`, params: { postId: addon.id }, cookie: tier2Cookie });
    expect(having.status).toBe(200);
    expect(having.headers.get("X-Missing-Requirements")).toBeNull();
    await having.arrayBuffer();
  });

  it("checks the requirements with the download's own viewer: its facts and library stamp are read once", async () => {
    const { result, queries } = await queriesDuring("viewer_context", () =>
      callRoute(downloadRoute, { path: `/api/download/${addon.id}`, params: { postId: addon.id }, cookie: tier1Cookie }),
    );
    expect(result.headers.get("X-Missing-Requirements")).toBe(basePack.id);
    await result.arrayBuffer();
    expect(queries).toHaveLength(1);
  });

  it("is in GET /api/library/posts/{id} with the viewer's access line", async () => {
    const response = await callRoute(postApi, { path: `/api/library/posts/${addon.id}`, params: { id: addon.id }, cookie: tier1Cookie });
    const body = await readJsonBody<{ requirements: { kind: string; met: boolean | null; access?: string; post_id?: string }[] }>(response);
    expect(body.requirements[0]).toMatchObject({ kind: "post", post_id: basePack.id, met: false, access: "unlocked by Tier 2" });
    expect(body.requirements[1]).toMatchObject({ kind: "item", met: null });
  });
});

describe("a required post the viewer may not see", () => {
  it("is shown without its name or id, on the card, the page, the API and the download", async () => {
    const library = await html("/library", tier1Cookie);
    const card = cardOf(library, secretUser.id);
    expect(requirementLines(card)).toEqual(["Requires another post that is not available yet · not out yet"]);
    expect(library).not.toContain("Secret Sequel Pack");
    expect(library).not.toContain(`/library/${secret.id}"`);
    const page = await html(`/library/${secretUser.id}`, tier1Cookie);
    expect(page).not.toContain("Secret Sequel Pack");
    const response = await callRoute(postApi, { path: `/api/library/posts/${secretUser.id}`, params: { id: secretUser.id }, cookie: tier1Cookie });
    const text = await response.text();
    expect(text).not.toContain("Secret Sequel Pack");
    expect(text).not.toContain(secret.id);
    const download = await callRoute(downloadRoute, { path: `/api/download/${secretUser.id}`, params: { postId: secretUser.id }, cookie: tier1Cookie });
    expect(download.status).toBe(200);
    expect(download.headers.get("X-Missing-Requirements")).toBe("hidden");
    await download.arrayBuffer();
  });
});

describe("tags", () => {
  it("filter the library by ?tag= and show on cards as links to that filter", async () => {
    await createTag(admin.id, { name: "Hair", slug: "hair" });
    await setPostTags(admin.id, addon.id, { tags: ["hair"] });
    const filtered = await html("/library?tag=hair", fanCookie);
    expect(filtered).toContain(`data-post-id="${addon.id}"`);
    expect(filtered).not.toContain(`data-post-id="${basePack.id}"`);
    expect(filtered).toMatch(/<option value="hair" selected="">Hair<\/option>/);
    expect(cardOf(filtered, addon.id)).toMatch(/<a class="tag-chip"[^>]*href="\/library\?tag=hair">Hair<\/a>/);
    const all = await html("/library", fanCookie);
    expect(all).toContain(`data-post-id="${basePack.id}"`);
  });

  it("refuses an unknown tag through /api without changing the post", async () => {
    const cookie = await sessionCookie(admin.id);
    const response = await callRoute(tagsApi, {
      method: "PUT",
      path: `/api/admin/posts/${addon.id}/tags`,
      params: { id: addon.id },
      json: { tags: ["hair", "nope"] },
      cookie,
    });
    expect(response.status).toBe(400);
    const links = await db.postTag.findMany({ where: { postId: addon.id }, select: { tag: { select: { slug: true } } } });
    expect(links.map((link) => link.tag.slug)).toEqual(["hair"]);
  });
});

describe("requirements through /api/admin", () => {
  it("refuses a post requiring itself or an unknown post, leaving the stored list unchanged", async () => {
    const cookie = await sessionCookie(admin.id);
    const before = await db.postRequirement.count({ where: { postId: addon.id } });
    for (const requirements of [[{ post_id: addon.id }], [{ post_id: "no-such-post" }], [{ name: "Mod", url: "http://insecure.example" }]]) {
      const response = await callRoute(requirementsApi, {
        method: "PUT",
        path: `/api/admin/posts/${addon.id}/requirements`,
        params: { id: addon.id },
        json: { requirements },
        cookie,
      });
      expect(response.status).toBe(400);
    }
    expect(await db.postRequirement.count({ where: { postId: addon.id } })).toBe(before);
    const listed = await callRoute(requirementsApi, { path: `/api/admin/posts/${addon.id}/requirements`, params: { id: addon.id }, cookie });
    const body = await readJsonBody<{ requirements: { post_id: string | null; title: string | null }[] }>(listed);
    expect(body.requirements[0]).toMatchObject({ post_id: basePack.id, title: "Base Pack" });
  });
});

describe("prices", () => {
  it("show on the Subscribe button and, where entered, on the shop button", async () => {
    const shopPost = await createPost({ title: "Priced Shop Item", tiers: [TIER_2], kofiId: "PRICED1" });
    await db.post.update({ where: { id: shopPost.id }, data: { shopPriceCents: 450, shopCurrency: "USD" } });
    const card = cardOf(await html(`/library/${shopPost.id}`, fanCookie), shopPost.id);
    expect(card).toContain("Subscribe (Tier 2) · $5/month");
    expect(card).toContain("Ko-fi Shop · $4.50");
  });
});

describe("the release plan's requirement warning", () => {
  it("warns when a step opens the post before its audience can get what it requires, and saves the plan", async () => {
    const post = await createPost({ title: "Cascade Addon", tiers: [], kofiId: null });
    await setPostRequirements(admin.id, post.id, { requirements: [{ kind: "post", postId: basePack.id, minVersion: null }] });
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_2, after_days: 0 }] });
    expect(await releaseRequirementWarnings(post.id)).toEqual([]);
    await setReleaseSteps(admin, post.id, {
      steps: [
        { audience: TIER_2, after_days: 0 },
        { audience: TIER_1, after_days: 5 },
      ],
    });
    const warnings = await releaseRequirementWarnings(post.id);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^The step for Tier 1 on .+ opens this post before Tier 1 can get Base Pack, which it requires\.$/);
    expect(await db.releaseStep.count({ where: { postId: post.id } })).toBe(2);
  });
});
