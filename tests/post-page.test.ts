// A post's own page, /library/{postId}, as whole documents (Remix's handler with the real route
// modules): what each viewer sees, the link preview tags, the 404 for a post the viewer may not
// see, and GET /api/library/posts/{postId}, which reads the same model.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { postImageKey } from "~/models/library-listing.server";
import * as postApi from "~/routes/api.library.posts.$id";
import * as library from "~/routes/library";
import { requestDocument } from "./documents";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";

const NSFW = "nsfwAccepted=dHJ1ZQ%3D%3D";

/** The content of a <meta> tag, by its property or name, as a link preview reads it. */
function metaContent(html: string, key: string): string | null {
  const tag = new RegExp(`<meta (?:property|name)="${key.replace(":", "\\:")}" content="([^"]*)"`).exec(html);
  return tag ? tag[1]!.replaceAll("&amp;", "&") : null;
}

async function page(postId: string, cookie?: string): Promise<{ status: number; html: string }> {
  const response = await requestDocument({ path: `/library/${postId}`, cookie: cookie ? `${cookie}; ${NSFW}` : NSFW });
  return { status: response.status, html: await response.text() };
}

let supporterCookie: string;
let fanCookie: string;
let adminCookie: string;

beforeAll(async () => {
  await createTiers();
  supporterCookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2, tosAccepted: true })).id);
  fanCookie = await sessionCookie((await createTestUser()).id);
  adminCookie = await sessionCookie((await createTestUser({ isAdmin: true, canBeAdmin: true })).id);
});

describe("/library/{postId}", () => {
  it("shows a guest the post, what unlocks it, and the preview tags a shared link needs", async () => {
    const post = await createPost({ tiers: [TIER_2], kofiId: null, title: "Harbour Set", fileSize: 2048 });
    await db.post.update({ where: { id: post.id }, data: { imageKey: postImageKey(post.id) } });
    const { status, html } = await page(post.id);
    expect(status).toBe(200);
    expect(html).toMatch(/<h1 id="post-[^"]+-title" class="post-title">Harbour Set<\/h1>/);
    expect(html).toContain("Unlocks with Tier 2");
    expect(html).toContain("What unlocks this?");
    expect(html).toContain("<title>Harbour Set · Creator Library</title>");
    expect(metaContent(html, "og:title")).toBe("Harbour Set");
    expect(metaContent(html, "og:description")).toBe("Unlocks with Tier 2");
    expect(metaContent(html, "og:url")).toBe(`http://localhost:3999/library/${post.id}`);
    expect(metaContent(html, "og:image")).toMatch(new RegExp(`^http://localhost:3999/media/posts/${post.id}\\.jpg`));
    expect(metaContent(html, "twitter:card")).toBe("summary_large_image");
    expect(metaContent(html, "twitter:description")).toBe("Unlocks with Tier 2");
    // No Download for a guest on a paid post.
    expect(html).not.toMatch(/<button type="submit" class="button">Download/);
  });

  it("says Free in the preview of a free post, and offers its download to everyone", async () => {
    const post = await createPost({ paid: false, title: "Free Chair", fileSize: 1024 });
    const { status, html } = await page(post.id);
    expect(status).toBe(200);
    expect(metaContent(html, "og:description")).toBe("Free");
    expect(metaContent(html, "twitter:card")).toBe("summary");
    expect(metaContent(html, "og:image")).toBeNull();
    expect(html).toMatch(/Download<!-- --> \(1\.00 KB\)/);
  });

  it("gives a supporter the download with the versions unfolded, and its forms come back to this page", async () => {
    const post = await createPost({ tiers: [TIER_2], title: "Tier Two Pack", fileSize: 4096 });
    const version = await db.postVersion.create({
      data: { postId: post.id, label: "V1.0", notes: "First **release**.", storageKey: post.driveFileId!, fileName: post.fileName!, size: 4096n },
    });
    await db.post.update({ where: { id: post.id }, data: { currentVersionId: version.id } });
    const { status, html } = await page(post.id, supporterCookie);
    expect(status).toBe(200);
    expect(html).toContain("You own this item");
    expect(html).toMatch(/Download<!-- --> \(4\.00 KB\)/);
    expect(html).toMatch(/<details class="version-history" data-testid="version-history" data-post-id="[^"]+" open="">/);
    expect(html).toContain("First <strong>release</strong>.");
    expect(html).toContain(`name="back" value="/library/${post.id}"`);
  });

  it("answers 404 for a disabled, a scheduled or an unknown post, as the library lists neither, to guests, fans and supporters", async () => {
    const disabled = await createPost({ tiers: [TIER_2], enabled: false, title: "Switched Off" });
    const scheduled = await createPost({ tiers: [TIER_2], title: "Next Week" });
    await db.post.update({ where: { id: scheduled.id }, data: { publishAt: new Date(Date.now() + 7 * 86_400_000) } });
    for (const cookie of [undefined, fanCookie, supporterCookie]) {
      for (const id of [disabled.id, scheduled.id, "999999999"]) {
        const { status, html } = await page(id, cookie);
        expect(status, `${id} for ${cookie ?? "a guest"}`).toBe(404);
        expect(html).not.toContain("Switched Off");
        expect(html).not.toContain("Next Week");
      }
    }
    // The admin sees both, to check them before they open.
    expect((await page(disabled.id, adminCookie)).status).toBe(200);
    expect((await page(scheduled.id, adminCookie)).status).toBe(200);
  });

  it("is where the library's cards and list rows lead", async () => {
    const post = await createPost({ paid: false, title: "Linked Lamp" });
    for (const layout of ["grid", "list"]) {
      const response = await requestDocument({ path: `/library?layout=${layout}&search=Linked%20Lamp`, cookie: NSFW });
      expect(await response.text()).toContain(`href="/library/${post.id}">Linked Lamp</a>`);
    }
  });

  it("without JavaScript, a download that needs the terms first comes back to the post's page with the terms", async () => {
    const post = await createPost({ paid: false, title: "Terms Table" });
    const user = await createTestUser();
    const response = await callRoute(library, {
      method: "POST",
      path: "/library",
      form: { intent: "download", postId: post.id, back: `/library/${post.id}` },
      cookie: await sessionCookie(user.id),
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/library/${post.id}?terms=${post.id}`);
    const { html } = await page(`${post.id}?terms=${post.id}`, await sessionCookie(user.id));
    expect(html).toContain('data-testid="terms-modal"');
  });
});

describe("GET /api/library/posts/{postId}", () => {
  it("answers the post with its access and versions as the page shows them, and 404 where the page would", async () => {
    const post = await createPost({ tiers: [TIER_2], title: "Api Post" });
    const disabled = await createPost({ tiers: [TIER_2], enabled: false });
    const call = (id: string, cookie?: string) => callRoute(postApi, { path: `/api/library/posts/${id}`, params: { id }, cookie });

    const guest = await call(post.id);
    expect(guest.status).toBe(200);
    const body = await readJsonBody<{ post: { postId: string; unlocked: boolean }; access: { allowed: boolean }; versions: unknown[] }>(guest);
    expect(body.post).toMatchObject({ postId: post.id, unlocked: false });
    expect(body.access.allowed).toBe(false);

    const supporter = await readJsonBody<{ post: { unlocked: boolean }; access: { allowed: boolean } }>(await call(post.id, supporterCookie));
    expect(supporter.post.unlocked).toBe(true);
    expect(supporter.access.allowed).toBe(true);

    const hidden = await call(disabled.id, supporterCookie);
    expect(hidden.status).toBe(404);
    expect(await readJsonBody(hidden)).toEqual({ error: "Post not found." });
  });
});
