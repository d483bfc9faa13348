// Access explained on the library cards (each of the six reasons, and what unlocks a locked
// post), with and without JavaScript; the admins' Check access; and "Download all updates".
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

    test("each unlocked card says why, and a locked one what would unlock it", async ({ page }) => {
      await openLibrary(page);
      await expect(card(page, "free").getByTestId("access-reason")).toHaveText(/Free$/);
      await loginAs(page, supporterId);
      await openLibrary(page);
      await expect(card(page, "free").getByTestId("access-reason")).toHaveText(/Free$/);
      await expect(card(page, "tier").getByTestId("access-reason")).toHaveText(/Your Tier 2 membership$/);
      await expect(card(page, "early").getByTestId("access-reason")).toHaveText(/Early supporter: you were on Tier 1 when this was published on 3 March 2026$/);
      await expect(card(page, "bought").getByTestId("access-reason")).toHaveText(
        new RegExp(`Bought on 12 May 2026 with shop email ${shopEmail.replace(/\./g, "\\.")}$`),
      );
      await expect(card(page, "granted").getByTestId("access-reason")).toHaveText(/Granted by the creator$/);

      const locked = card(page, "locked");
      await expect(locked.getByTestId("access-reason")).toHaveCount(0);
      await locked.getByText("What unlocks this?").click();
      await expect(locked.getByRole("link", { name: "Join Tier 3" })).toBeVisible();
      await expect(locked.getByRole("link", { name: "Buy in the shop" })).toHaveAttribute("href", new RegExp(`/s/KL${tag}$`));
      await expect(locked.getByText("Current tier Tier 2; this post needs Tier 3")).toBeVisible();

      await loginAs(page, adminId);
      await openLibrary(page, "&view=user");
      await expect(card(page, "locked").getByTestId("access-reason")).toHaveText(/Admin$/);
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
