// Signed-in library pages are kept rendered (app/document-cache.server.ts), keyed by the loader
// data Remix streams into the page: once kept, each reader must still get a page of their own
// access and downloads, and a change to a post, a tier link, a grant or a download must show on
// that reader's very next view.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { createTestUser, sessionCookie } from "./helpers";
import { requestDocument } from "./documents";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";

/** The card of `postId` in a reader's whole /library page (the search keeps the page to it). */
async function cardOf(title: string, postId: string, cookie: string): Promise<string> {
  const response = await requestDocument({ path: `/library?search=${encodeURIComponent(title)}`, cookie });
  expect(response.status).toBe(200);
  const html = (await response.text()).replace(/<!-- -->/g, "");
  const card = new RegExp(`<article[^>]*data-post-id="${postId}"[^>]*>.*?</article>`, "s").exec(html);
  expect(card, `the card of ${postId}`).not.toBeNull();
  return card![0];
}

const DOWNLOAD_FORM = /<input type="hidden" name="intent" value="download"\/>/;

beforeAll(async () => {
  await createTiers();
});

describe("kept signed-in library pages", () => {
  it("give each reader their own access and downloads after they are kept, and show a change on the next view", async () => {
    const title = "Kept-page Lantern";
    const post = await createPost({ tiers: [TIER_2], title });
    const tier2 = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const tier1 = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
    const granted = await createTestUser({ tosAccepted: true });
    const cookies = { tier2: await sessionCookie(tier2.id), tier1: await sessionCookie(tier1.id), granted: await sessionCookie(granted.id) };
    const views = async () => ({
      tier2: await cardOf(title, post.id, cookies.tier2),
      tier1: await cardOf(title, post.id, cookies.tier1),
      granted: await cardOf(title, post.id, cookies.granted),
    });

    // Each twice: the second round is answered from the documents the first one kept.
    for (let round = 0; round < 2; round++) {
      const cards = await views();
      expect(cards.tier2).toMatch(DOWNLOAD_FORM);
      expect(cards.tier2).toContain("Never downloaded");
      expect(cards.tier1).not.toMatch(DOWNLOAD_FORM);
      expect(cards.granted).not.toMatch(DOWNLOAD_FORM);
    }

    // A download shows on the downloader's next view, and on nobody else's.
    await db.download.create({ data: { userId: tier2.id, postId: post.id, version: "V1.0" } });
    let cards = await views();
    expect(cards.tier2).not.toContain("Never downloaded");
    expect(cards.tier2).toMatch(DOWNLOAD_FORM);
    expect(cards.tier1).not.toMatch(DOWNLOAD_FORM);

    // A grant opens the post to its reader only.
    await db.unlockedContent.create({ data: { userId: granted.id, postId: post.id, source: "ADMIN" } });
    cards = await views();
    expect(cards.granted).toMatch(DOWNLOAD_FORM);
    expect(cards.granted).toContain("Never downloaded");
    expect(cards.tier1).not.toMatch(DOWNLOAD_FORM);

    // A tier linked to the post opens it to that tier's readers.
    await db.postTier.create({ data: { postId: post.id, tierId: TIER_1, kind: "CURRENT" } });
    cards = await views();
    expect(cards.tier1).toMatch(DOWNLOAD_FORM);

    // A post's own change (its title) shows to every reader.
    const renamed = "Kept-page Lantern renamed";
    await db.post.update({ where: { id: post.id }, data: { title: renamed } });
    for (const cookie of Object.values(cookies)) expect(await cardOf(renamed, post.id, cookie)).toContain(renamed);
  });
});
