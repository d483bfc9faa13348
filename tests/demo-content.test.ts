import { createHash } from "node:crypto";
import bcrypt from "bcryptjs";
import sharp from "sharp";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { listZipEntries, readZipEntry } from "~/integrations/zip.server";
import { checkBlenderManifest } from "~/utils/blender-manifest";
import { loadInsights } from "~/models/insights/charts.server";
import { versionHistories } from "~/models/post-version-history.server";
import { runUpdateDigests } from "~/models/update-digest.server";
import { parseInsightsRange } from "~/utils/insights-schemas";
import { isListedPostPublic, listLibraryPosts, patchDayCounts } from "~/models/library-listing.server";
import { listGamePatches, listPatchNews, postPatchView } from "~/models/game-patch.server";
import {
  DEMO_ADMIN,
  DEMO_CONFIRMED_ON_CURRENT,
  DEMO_FAN,
  DEMO_PATCHES,
  DEMO_PLAYER_CONFIRMED,
  DEMO_SUPPORTER,
  demoImage,
  seedDemoContent,
} from "../prisma/demo-content";

describe("demo content", () => {
  it("seeds tiers, posts with files and images, panels, an inspiration vote and a demo admin, once", async () => {
    const store = await storage();
    expect(await seedDemoContent(db, store)).toBe(true);

    const tiers = await db.tier.findMany();
    expect(
      tiers
        .filter((tier) => tier.isPaid)
        .map((tier) => tier.id)
        .sort(),
    ).toEqual(["10477032", "21786318", "8652254", "8824971", "8825009"].sort());
    expect(
      tiers
        .filter((tier) => tier.canVote)
        .map((tier) => tier.id)
        .sort(),
    ).toEqual(["21786318", "23507144", "23507184", "8658988", "8825009", "8825088"].sort());

    const posts = await db.post.findMany({ include: { releaseSteps: true } });
    expect(posts).toHaveLength(27);
    // Releases for a newcomer to see at once: a post mid-cascade, and one scheduled ahead.
    const now = Date.now();
    const cascade = posts.find((post) => post.title === "Midnight Observatory")!;
    expect(cascade.releaseSteps.filter((step) => step.opensAt.getTime() <= now)).toHaveLength(1);
    expect(cascade.releaseSteps.filter((step) => step.opensAt.getTime() > now)).toHaveLength(3);
    expect(posts.find((post) => post.title === "Holiday Market Stalls")!.publishAt!.getTime()).toBeGreaterThan(now);
    expect(posts.some((post) => !post.paidContent)).toBe(true);
    expect(posts.some((post) => post.isKofiOnly)).toBe(true);
    const withImage = posts.find((post) => post.imageKey)!;
    const image = await sharp(await streamToBuffer(await store.read(withImage.imageKey!))).metadata();
    expect(image.format).toBe("jpeg");
    for (const post of posts) {
      expect((await store.stat(post.driveFileId!))?.size).toBe(Number(post.fileSize));
    }

    // Every post's file is its current version; the ZIP demo post has two, with a changelog.
    for (const post of posts) {
      const current = await db.postVersion.findUniqueOrThrow({ where: { id: post.currentVersionId! } });
      expect(current).toMatchObject({ storageKey: post.driveFileId, label: post.version, size: post.fileSize });
      expect(current.sha256).toBe(
        createHash("sha256")
          .update(await streamToBuffer(await store.read(post.driveFileId!)))
          .digest("hex"),
      );
    }
    const zipPost = posts.find((post) => post.title === "Neon Streetwear Set")!;
    const history = (await versionHistories([zipPost.id], { admin: false }))[zipPost.id]!;
    expect(history.map((version) => version.label)).toEqual(["V2.1", "V2.0"]);
    expect(await listZipEntries(store, zipPost.driveFileId!)).toEqual(
      history[0]!.zip ? (await db.postVersion.findUniqueOrThrow({ where: { id: history[0]!.id } })).zipEntries : null,
    );
    const changelog = history[0]!.changelog!;
    expect([changelog.added.length, changelog.removed.length, changelog.changed.length].every((count) => count > 0)).toBe(true);

    // One Blender add-on, its file a real extension ZIP whose manifest passes the upload's check.
    const addOns = posts.filter((post) => post.blenderExtension !== null);
    expect(addOns.map((post) => [post.title, post.blenderExtension])).toEqual([["Cabin Builder for Blender", "ADD_ON"]]);
    const addOnEntries = await listZipEntries(store, addOns[0]!.driveFileId!);
    const manifestText = (await readZipEntry(store, addOns[0]!.driveFileId!, "cabin_builder/blender_manifest.toml", 65_536))!.toString("utf8");
    const checked = checkBlenderManifest(manifestText);
    expect(checked).toMatchObject({ ok: true, manifest: { id: "cabin_builder", type: "add-on" } });
    expect(addOnEntries.map((entry) => entry.path)).toContain("cabin_builder/__init__.py");
    const addOnVersion = await db.postVersion.findUniqueOrThrow({ where: { id: addOns[0]!.currentVersionId! } });
    expect(addOnVersion.blenderManifest).toEqual(checked.ok ? checked.manifest : null);
    // Requirements, tags and prices (docs/product.md#requirements, #tags, #prices).
    const coats = posts.find((post) => post.title === "Winter Coat Bundle")!;
    const required = await db.postRequirement.findMany({ where: { postId: coats.id }, orderBy: { position: "asc" }, include: { requiredPost: true } });
    expect(required.map((row) => [row.requiredPost?.title ?? row.name, row.minVersion])).toEqual([
      ["Neon Streetwear Set", "V2"],
      ["Script Extender", null],
    ]);
    expect(await db.postTag.count()).toBeGreaterThanOrEqual(6);
    expect(await db.tag.findMany({ orderBy: { slug: "asc" }, select: { slug: true } })).toEqual([
      { slug: "builds" },
      { slug: "clothing" },
      { slug: "furniture" },
    ]);
    expect(posts.filter((post) => post.shopPriceCents !== null).length).toBeGreaterThan(0);
    expect(tiers.find((tier) => tier.id === "8825009")).toMatchObject({ amountCents: 500, currency: "USD" });

    expect(await db.panel.count()).toBe(6);
    expect(await db.inspirationPanel.count()).toBe(8);
    // A Discord role mapping: tier 2 or higher gets @Gold.
    expect(await db.discordRoleMapping.findMany({ where: { rule: "TIER_AT_LEAST" }, select: { roleName: true, tierId: true } })).toEqual([
      { roleName: "Gold", tierId: "8825009" },
    ]);
    // The card shows the title under the image: the demo images carry no caption of their own.
    const idea = await db.inspirationPanel.findFirstOrThrow({ where: { title: "Idea #1" } });
    const ideaImage = await streamToBuffer(await store.read(idea.imageUrl.replace("/media/", "images/")));
    expect(ideaImage.equals(await demoImage(null, 1))).toBe(true);
    const admin = await db.user.findUniqueOrThrow({ where: { email: DEMO_ADMIN.email } });
    expect(admin.isAdmin && admin.canBeAdmin && admin.mailVerified).toBe(true);
    expect(await bcrypt.compare(DEMO_ADMIN.password, admin.passwordHash!)).toBe(true);

    expect(await seedDemoContent(db, store)).toBe(false);
    expect(await db.post.count()).toBe(27);
  }, 60_000);

  it("seeds a generated past that every insights chart shows on the first visit, without touching the demo accounts", async () => {
    // The demo is already seeded by the test above (same database): only its history is read here.
    const day = (date: Date) => date.toISOString().slice(0, 10);
    const today = day(new Date());
    const demoAccounts = await db.user.findMany({ where: { email: { in: [DEMO_ADMIN.email, DEMO_SUPPORTER.email, DEMO_FAN.email] } } });
    const generated = await db.user.findMany({ where: { email: { notIn: [DEMO_ADMIN.email, DEMO_SUPPORTER.email, DEMO_FAN.email] } } });
    expect(generated.length).toBeGreaterThanOrEqual(40);
    expect(generated.every((user) => user.email!.endsWith("@example.com") && user.passwordHash === null && !user.isAdmin && !user.canBeAdmin)).toBe(true);
    // The demo accounts keep their leak-trace numbers and come first in the newest-first user list.
    expect(Math.max(...demoAccounts.map((user) => user.number))).toBeLessThan(Math.min(...generated.map((user) => user.number)));
    expect(Math.min(...demoAccounts.map((user) => user.createdAt.getTime()))).toBeGreaterThan(Math.max(...generated.map((user) => user.createdAt.getTime())));
    for (const account of demoAccounts) {
      const counts = await Promise.all([
        db.download.count({ where: { userId: account.id } }),
        db.pledgeEvent.count({ where: { userId: account.id } }),
        db.inspirationLike.count({ where: { userId: account.id } }),
        db.unlockedContent.count({ where: { userId: account.id } }),
        db.updateSubscription.count({ where: { userId: account.id } }),
        db.purchase.count({ where: { email: account.email! } }),
      ]);
      expect(counts, account.email!).toEqual([0, 0, 0, 0, 0, 0]);
    }

    // 90 days of downloads before today, by members and by accounts without a tier.
    const downloads = await db.download.findMany({
      select: { createdAt: true, accessSource: true, user: { select: { currentTierId: true, pledgeEvents: { select: { id: true }, take: 1 } } } },
    });
    const days = new Set(downloads.map((download) => day(download.createdAt)));
    expect(days.size).toBeGreaterThanOrEqual(80);
    expect([...days].every((date) => date < today)).toBe(true);
    expect(new Set(downloads.map((download) => download.accessSource))).toEqual(new Set(["FREE", "TIER", "EARLY_SUPPORTER", "PURCHASE", "GRANT"]));
    expect(downloads.some((download) => download.user.pledgeEvents.length === 0)).toBe(true);
    // Pledges moving between tiers, orders with and without an amount, a vote round.
    const events = await db.pledgeEvent.findMany();
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(["pledge_start", "pledge_upgrade", "pledge_downgrade", "pledge_delete"]));
    expect(new Set(events.map((event) => event.tierId).filter(Boolean)).size).toBeGreaterThanOrEqual(4);
    expect(await db.purchase.count({ where: { amountCents: { not: null } } })).toBeGreaterThan(20);
    expect(await db.inspirationLike.count({ where: { kind: "LIKE" } })).toBeGreaterThan(10);
    expect(await db.inspirationLike.count({ where: { kind: "PATREON" } })).toBeGreaterThan(0);
    // Bug reports in each state, each by an account that downloaded the post, with "me too"s; the fixed one names a version of its post.
    const reports = await db.bugReport.findMany({ include: { _count: { select: { meToos: true } }, fixedVersion: { select: { postId: true } } } });
    expect(new Set(reports.map((report) => report.state))).toEqual(new Set(["NEW", "CONFIRMED", "FIXED", "WONT_FIX"]));
    expect(reports.reduce((sum, report) => sum + report._count.meToos, 0)).toBeGreaterThan(0);
    for (const report of reports) expect(await db.download.count({ where: { userId: report.userId, postId: report.postId } })).toBeGreaterThan(0);
    expect(reports.find((report) => report.state === "FIXED")!.fixedVersion!.postId).toBe(reports[0]!.postId);

    // The insights job ran once at the end of the seed: past days come from its rollups.
    expect(day((await db.insightsRollupState.findUniqueOrThrow({ where: { id: 1 } })).completeThrough!)).toBe(today);
    expect(await db.downloadDaySource.count()).toBeGreaterThan(0);
    const parsed = parseInsightsRange(new URLSearchParams({ range: "90" }));
    if (!parsed.success) throw new Error(parsed.error);
    const insights = await loadInsights(parsed.range);
    expect(insights.downloads.reduce((sum, entry) => sum + entry.total, 0)).toBe(
      downloads.filter((download) => day(download.createdAt) >= parsed.range.from).length,
    );
    expect(insights.downloads.filter((entry) => entry.total > 0).length).toBeGreaterThanOrEqual(80);
    expect(insights.topPosts.posts).toHaveLength(10);
    expect(insights.topPosts.posts.some((post) => post.ownersOnCurrentVersion < post.owners)).toBe(true);
    // Members per tier now agree with the accounts' current tiers (the demo supporter included).
    const withTier = await db.user.groupBy({ by: ["currentTierId"], where: { currentTierId: { not: null } }, _count: true });
    expect(insights.members.total).toBe(withTier.reduce((sum, row) => sum + row._count, 0));
    expect(insights.members.tiers.filter((tier) => tier.members > 0).length).toBeGreaterThanOrEqual(2);
    expect(insights.members.tiers.find((tier) => tier.tierId === "8825009")!.members).toBeGreaterThan(1);
    const lastMonth = insights.supporters.months[insights.supporters.months.length - 1]!;
    expect(lastMonth.total).toBeGreaterThan(0);
    expect(insights.supporters.tiers.length).toBeGreaterThanOrEqual(3);
    expect(insights.supporters.months.some((month) => month.gained > 0) && insights.supporters.months.some((month) => month.lost > 0)).toBe(true);
    expect(insights.shop.months.reduce((sum, month) => sum + month.purchases, 0)).toBeGreaterThan(0);
    expect(insights.inspiration.ideas.filter((idea) => idea.total > 0).length).toBeGreaterThanOrEqual(4);
    // Accounts that asked for update mails, so "Send update digests now" has something to send:
    // each of them gets a digest (written to DATA_DIR/mail here).
    const subscribers = await db.updateSubscription.count({ where: { notifyNewPosts: true } });
    expect(subscribers).toBeGreaterThan(0);
    expect(await runUpdateDigests({ ignorePeriod: true })).toMatchObject({ skipped: null, mailed: subscribers, failed: 0 });
  }, 60_000);

  it("shows a patch day under way: two patches, some posts confirmed on the new one, one broken then fixed, players' answers", async () => {
    // Seeded by the first test (same database).
    const patches = await listGamePatches();
    expect(patches.map((patch) => [patch.name, patch.current])).toEqual([
      [DEMO_PATCHES.previous, false],
      [DEMO_PATCHES.current, true],
    ]);
    const listed = (await listLibraryPosts(null)).posts.filter((post) => isListedPostPublic(post));
    const counts = patchDayCounts(listed)!;
    expect(counts.patch).toBe(DEMO_PATCHES.current);
    expect(counts.confirmed).toBe(DEMO_CONFIRMED_ON_CURRENT.length + 1);
    expect(counts.total).toBeGreaterThan(counts.confirmed);
    const neon = listed.find((post) => post.title === "Neon Streetwear Set")!;
    expect(neon.compatibility).toEqual({ patch: DEMO_PATCHES.current, mark: "works" });
    const news = await listPatchNews([neon.postId], new Date(0), 10);
    expect(news.find((item) => item.patch === DEMO_PATCHES.current)).toMatchObject({ label: "V2.1", fixed: true });
    const autumn = listed.find((post) => post.title === DEMO_PLAYER_CONFIRMED)!;
    expect(autumn.compatibility?.mark).toBe("untested");
    const version = await db.post.findUniqueOrThrow({ where: { id: autumn.postId } });
    const view = await postPatchView(autumn.postId, [version.currentVersionId!], null);
    expect(view.versions[version.currentVersionId!]!.votes).toEqual({ works: 2, broken: 1 });
  });
});

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
