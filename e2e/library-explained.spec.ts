// Access explained on the library cards (each of the six reasons on the owned card's status
// line, and what unlocks a locked post), with and without JavaScript; the admins' Check access; and "Download all updates".
import type { Page } from "@playwright/test";
import { db, expect, loginAs, test } from "./fixtures";

const TIER_1 = "8824971";
const TIER_2 = "8825009";
const TIER_3 = "21786318";
const tag = Date.now().toString(36);
const ids: string[] = [];
const userIds: string[] = [];
const shopEmail = `buyer-${tag}@shop.example`;

async function post(
  suffix: string,
  data: { paid?: boolean; kofiId?: string | null; kofiOnly?: boolean; tiers?: string[]; firstTiers?: string[]; firstPublishedAt?: Date },
) {
  const id = `ex${tag}${suffix}`;
  ids.push(id);
  await db.post.create({
    data: {
      id,
      title: `Explained ${suffix}`,
      paidContent: data.paid ?? true,
      kofiId: data.kofiId ?? null,
      isKofiOnly: data.kofiOnly ?? false,
      firstPublishedAt: data.firstPublishedAt ?? new Date("2026-01-10T12:00:00Z"),
      orderDate: new Date("2000-01-01T00:00:00Z"),
      tiers: {
        create: [
          ...(data.tiers ?? []).map((tierId) => ({ tierId, kind: "CURRENT" as const })),
          ...(data.firstTiers ?? []).map((tierId) => ({ tierId, kind: "FIRST" as const })),
        ],
      },
    },
  });
  return id;
}

let supporterId = "";
let adminId = "";

test.beforeAll(async () => {
  await post("free", { paid: false });
  await post("tier", { tiers: [TIER_2] });
  await post("early", { tiers: [TIER_3], firstTiers: [TIER_1], firstPublishedAt: new Date("2026-03-03T15:00:00Z") });
  await post("bought", { kofiId: `KX${tag}`, kofiOnly: true });
  const granted = await post("granted", { tiers: [TIER_3] });
  await post("locked", { tiers: [TIER_3], kofiId: `KL${tag}` });
  const supporter = await db.user.create({
    data: { email: `explained-${tag}@example.com`, fullName: "Explained Supporter", mailVerified: true, emailVerifiedBy: "CODE", currentTierId: TIER_2 },
  });
  const admin = await db.user.create({
    data: {
      email: `explained-admin-${tag}@example.com`,
      fullName: "Explained Admin",
      mailVerified: true,
      emailVerifiedBy: "CODE",
      isAdmin: true,
      canBeAdmin: true,
    },
  });
  supporterId = supporter.id;
  adminId = admin.id;
  userIds.push(supporter.id, admin.id);
  await db.pledgeEvent.create({
    data: {
      id: `pledge_start:ex${tag}`,
      userId: supporter.id,
      type: "pledge_start",
      amountCents: 300,
      date: new Date("2026-02-01T00:00:00Z"),
      tierId: TIER_1,
      paymentStatus: "Paid",
    },
  });
  await db.shopEmail.create({ data: { userId: supporter.id, email: shopEmail, verifiedEmail: shopEmail, verifiedAt: new Date() } });
  await db.purchase.create({
    data: { email: shopEmail, kofiItemCode: `KX${tag}`, transactionId: `tx-${tag}`, source: "ADMIN", purchasedAt: new Date("2026-05-12T09:00:00Z") },
  });
  await db.unlockedContent.create({ data: { userId: supporter.id, postId: granted, source: "ADMIN" } });
});

test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: { in: ids } } });
  await db.purchase.deleteMany({ where: { email: shopEmail } });
  await db.user.deleteMany({ where: { id: { in: userIds } } });
});

function card(page: Page, suffix: string) {
  return page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: `Explained ${suffix}`, exact: true }) });
}

async function openLibrary(page: Page, query = "") {
  // The 18+ warning is remembered in a cookie too, which is what a page without scripts reads
  // (Remix's cookie encoding of `true`: base64 of its JSON, URL-encoded).
  await page
    .context()
    .addCookies([{ name: "nsfwAccepted", value: encodeURIComponent(Buffer.from(JSON.stringify(true)).toString("base64")), url: process.env.APP_URL! }]);
  await page.goto(`/library?search=Explained${query}`);
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("each owned card says why on its status line, and a locked one what would unlock it", async ({ page }) => {
      await openLibrary(page);
      await expect(card(page, "free").getByTestId("post-status")).toHaveText(/Free download$/);
      await expect(card(page, "free").getByTestId("access-reason")).toHaveCount(0);
      await loginAs(page, supporterId);
      await openLibrary(page);
      await expect(card(page, "free").getByTestId("post-status")).toHaveText(/Free download$/);
      // The reason shares the status line with "You own this item", next to Download.
      const tier = card(page, "tier");
      await expect(tier.getByTestId("post-status")).toHaveText(/^✓\s*You own this item\s*·\s*:?\s*Included in your Tier 2 membership$/);
      await expect(tier.getByTestId("access-reason")).toHaveText(/Included in your Tier 2 membership$/);
      const download = await tier.getByRole("button", { name: /^Download/ }).boundingBox();
      const status = await tier.getByTestId("post-status").boundingBox();
      expect(download && status && Math.abs(download.y + download.height / 2 - (status.y + status.height / 2))).toBeLessThan(12);
      await expect(card(page, "early").getByTestId("access-reason")).toHaveText(/Early supporter on Tier 1$/);
      await expect(card(page, "bought").getByTestId("access-reason")).toHaveText(new RegExp(`Bought on 12 May 2026 with ${shopEmail.replace(/\./g, "\\.")}$`));
      await expect(card(page, "granted").getByTestId("access-reason")).toHaveText(/Granted by the creator$/);

      // Locked: one primary way in, one secondary, and the explanation repeats none of them.
      const locked = card(page, "locked");
      await expect(locked.getByTestId("access-reason")).toHaveCount(0);
      await expect(locked.getByRole("link", { name: "Subscribe (Tier 3)" })).toHaveClass("button");
      await expect(locked.getByRole("link", { name: "Ko-fi Shop" })).toHaveAttribute("href", new RegExp(`/s/KL${tag}$`));
      await expect(locked.getByRole("link", { name: "Ko-fi Shop" })).toHaveClass("button-secondary");
      await locked.getByText("What unlocks this?").click();
      const unlock = locked.getByTestId("access-unlock");
      await expect(unlock.getByText("A Tier 3 membership")).toBeVisible();
      await expect(unlock.getByText("Buying it in the shop")).toBeVisible();
      await expect(unlock.getByRole("link")).toHaveCount(0);
      await expect(unlock.getByText("Current tier Tier 2; this post needs Tier 3")).toBeVisible();
      // Fans see that it was not bought, not the shop's internal item code.
      await expect(unlock.getByText("Not bought in the shop", { exact: true })).toBeVisible();
      await expect(locked.getByText(/item KL/)).toHaveCount(0);
      // The summary sits on top, the content below it (not a squeezed side column).
      const summary = await unlock.locator("summary").boundingBox();
      const ways = await unlock.getByText("A Tier 3 membership").boundingBox();
      expect(summary && ways && ways.y).toBeGreaterThanOrEqual((summary?.y ?? 0) + (summary?.height ?? 0) - 1);

      await loginAs(page, adminId);
      await openLibrary(page, "&view=user");
      await expect(card(page, "locked").getByTestId("access-reason")).toHaveText(/Admin access$/);
    });

    test("an admin checks a user's access to a post, near misses included", async ({ page }) => {
      await loginAs(page, adminId);
      await page.goto(`/admin?user=${supporterId}`);
      const check = page.getByTestId("access-check");
      await check.getByLabel("Post (title or id)").fill("Explained locked");
      await check.getByRole("button", { name: "Check access" }).click();
      const result = page.getByTestId("access-check-result");
      await expect(result).toContainText("Cannot download");
      await expect(result).toContainText("Current tier Tier 2; this post needs Tier 3");
      await expect(result).toContainText(`Not bought in the shop (item KL${tag})`);
    });
  });
}

test("Download all updates fetches each behind post in turn, then the list is up to date", async ({ page }) => {
  const user = await db.user.create({
    data: { email: `updates-${tag}@example.com`, mailVerified: true, emailVerifiedBy: "CODE", currentTierId: TIER_2, tosAccepted: true },
  });
  userIds.push(user.id);
  const owned = await db.post.findMany({ where: { title: { in: ["Cozy Cabin Lot", "Minimalist Kitchen"] } }, select: { id: true, title: true } });
  expect(owned).toHaveLength(2);
  for (const item of owned) await db.download.create({ data: { userId: user.id, postId: item.id, version: "V0.9" } });
  await loginAs(page, user.id);
  await page.goto("/account/updates");
  await expect(page.getByTestId("updates-list").getByRole("listitem")).toHaveCount(2);
  await expect(page.getByTestId("updates-list")).toContainText("Your version V0.9");
  const downloads: string[] = [];
  page.on("download", (download) => downloads.push(download.suggestedFilename()));
  await page.getByRole("button", { name: "Download all updates (2)" }).click();
  await expect(page.getByText("All 2 updates downloaded.")).toBeVisible();
  expect(downloads).toHaveLength(2);
  await expect(page.getByTestId("no-updates")).toBeVisible();
});
