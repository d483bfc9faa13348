// The admins' "Check access", the library card's explanation and the download endpoint answer
// alike, for random users, posts, tiers, purchases, pledge histories, scheduled publications and
// release steps (opened or still ahead) stored in the database.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { checkAccess, describeLibraryCards, loadExplainedViewer } from "~/models/access.server";
import { loadViewerContext } from "~/models/entitlement.server";
import { LISTING_VIEWER, listLibraryPosts } from "~/models/library-listing.server";
import { listTiers } from "~/models/tier.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as libraryRoute from "~/routes/library";
import { audienceTierIds } from "~/utils/release-schemas";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

const KNOWN = [TIER_1, TIER_2, TIER_3];
// A user may be on a tier this site has no row for; a post links known tiers only.
const TIERS = [...KNOWN, "999"];
const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000);

const scenario = fc.record({
  post: fc.record({
    paid: fc.boolean(),
    enabled: fc.boolean(),
    kofiOnly: fc.boolean(),
    hasKofi: fc.boolean(),
    hasFile: fc.boolean(),
    tiers: fc.uniqueArray(fc.constantFrom(...KNOWN), { maxLength: 2 }),
    firstTiers: fc.uniqueArray(fc.constantFrom(...KNOWN), { maxLength: 2 }),
    publishedDay: fc.integer({ min: 10, max: 40 }),
    // Time (docs/product.md#releases): a publication and steps around the present instant.
    scheduledInDays: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null }),
    steps: fc.array(fc.record({ tier: fc.option(fc.constantFrom(...KNOWN), { nil: null }), inDays: fc.integer({ min: -10, max: 10 }) }), { maxLength: 3 }),
  }),
  user: fc.record({
    isAdmin: fc.boolean(),
    restricted: fc.boolean(),
    tosAccepted: fc.boolean(),
    currentTier: fc.option(fc.constantFrom(...TIERS), { nil: null }),
    granted: fc.option(fc.constantFrom("ADMIN" as const, "SYNC" as const), { nil: null }),
    pledges: fc.array(
      fc.record({
        type: fc.constantFrom("pledge_start", "pledge_upgrade", "pledge_delete"),
        day: fc.integer({ min: 0, max: 50 }),
        tier: fc.option(fc.constantFrom(...TIERS), { nil: null }),
        status: fc.option(fc.constantFrom("Paid", "Declined", "Pending"), { nil: null }),
      }),
      { maxLength: 4 },
    ),
    // Shop emails: each bought the post's item or another, verified or only linked.
    shop: fc.array(fc.record({ verified: fc.boolean(), boughtThis: fc.boolean() }), { maxLength: 2 }),
  }),
});

let run = 0;

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

async function arrange({ post: p, user: u }: Scenario) {
  run += 1;
  const post = await createPost({
    paid: p.paid,
    enabled: p.enabled,
    kofiOnly: p.kofiOnly,
    kofiId: p.hasKofi ? `AG${run}` : null,
    fileSize: p.hasFile ? 64 : null,
    tiers: p.tiers,
    firstTiers: p.firstTiers,
    firstPublishedAt: day(p.publishedDay),
  });
  const now = Date.now();
  if (p.scheduledInDays !== null) await db.post.update({ where: { id: post.id }, data: { publishAt: new Date(now + p.scheduledInDays * 86_400_000) } });
  const prices = (await db.tier.findMany()).map((tier) => ({ id: tier.id, isPaid: tier.isPaid, amountCents: tier.amountCents }));
  for (const [position, step] of p.steps.entries()) {
    await db.releaseStep.create({
      data: {
        postId: post.id,
        position,
        audienceTierId: step.tier,
        tierIds: step.tier ? audienceTierIds(step.tier, prices) : [],
        opensOn: new Date(now + step.inDays * 86_400_000),
        opensAt: new Date(now + step.inDays * 86_400_000),
      },
    });
  }
  const user = await createTestUser({ isAdmin: u.isAdmin, restricted: u.restricted, tosAccepted: u.tosAccepted, currentTierId: u.currentTier });
  if (u.granted) await db.unlockedContent.create({ data: { userId: user.id, postId: post.id, source: u.granted } });
  let index = 0;
  for (const pledge of u.pledges) {
    index += 1;
    await db.pledgeEvent.create({
      data: {
        id: `ag${run}:${index}`,
        userId: user.id,
        type: pledge.type,
        amountCents: 500,
        date: day(pledge.day),
        tierId: pledge.tier,
        paymentStatus: pledge.status,
      },
    });
  }
  index = 0;
  for (const shop of u.shop) {
    index += 1;
    const email = `buyer${run}-${index}@shop.example`;
    await db.shopEmail.create({ data: { userId: user.id, email, verifiedEmail: shop.verified ? email : null, verifiedAt: shop.verified ? new Date() : null } });
    await db.purchase.create({
      data: { email, kofiItemCode: shop.boughtThis ? `AG${run}` : `OTHER${run}`, transactionId: `t${run}-${index}`, source: "ADMIN", purchasedAt: day(45) },
    });
  }
  return { post, user };
}

beforeAll(async () => {
  await createTiers();
});

describe("one decision for downloads, cards and the admins' check", () => {
  it("agrees on random stored scenarios", async () => {
    const tiers = await listTiers();
    await fc.assert(
      fc.asyncProperty(scenario, async (value) => {
        const { post, user } = await arrange(value);
        const check = await checkAccess(user.id, post.id);
        const response = await callRoute(paidRoute, {
          method: "HEAD",
          path: `/api/download/${post.id}`,
          params: { postId: post.id },
          cookie: await sessionCookie(user.id),
        });
        expect(response.status === 200, `endpoint ${response.status}, check ${JSON.stringify(check)}`).toBe(check.downloadable);
        // A refusal by the rule itself is never blamed on the terms or the file.
        if (!check.access.allowed) expect([403, 404]).toContain(response.status);
        // The listing explained with the details the words name, loaded as the admins' check loads them.
        const listing = await listLibraryPosts(user, { context: await loadViewerContext(user, LISTING_VIEWER), explained: await loadExplainedViewer(user) });
        const listed = listing.posts.find((item) => item.postId === post.id);
        if (listed) {
          const cards = describeLibraryCards(listing, [listed], tiers);
          expect(cards[post.id]!.allowed).toBe(listed.unlocked);
          expect(cards[post.id]!.allowed).toBe(check.access.allowed);
          expect(cards[post.id]!.summary).toBe(check.access.summary);
          // The library page reads its viewer with the session (another statement): the same words.
          const page = await callRoute(libraryRoute, {
            path: `/library?search=${encodeURIComponent(post.title)}&terms=${post.id}`,
            cookie: await sessionCookie(user.id),
          });
          const { access } = (await page.json()) as { access: Record<string, unknown> };
          expect(access[post.id]).toEqual(cards[post.id]);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("Check access in a few words", () => {
  it("says a free post can be downloaded after accepting the terms, and a locked one cannot", async () => {
    await createTiers();
    const free = await createPost({ paid: false });
    const locked = await createPost({ paid: true, tiers: [TIER_3] });
    const newcomer = await createTestUser({ tosAccepted: false });
    const accepted = await createTestUser({ tosAccepted: true });
    expect((await checkAccess(newcomer.id, free.id)).verdict).toBe("Can download after accepting the terms");
    expect((await checkAccess(accepted.id, free.id)).verdict).toBe("Can download");
    expect((await checkAccess(accepted.id, locked.id)).verdict).toBe("Cannot download");
  });
});
