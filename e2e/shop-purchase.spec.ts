// A shop purchase arrives by webhook (real HTTP, as the shop sends it) for a guest email; the
// buyer later creates an account, links and verifies that email, and the library shows the
// post as owned. A forged delivery changes nothing.
import { kofiPayload, sendKofiWebhook } from "../tests/fakes/kofi";
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

const createdPostIds: string[] = [];
test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: { in: createdPostIds } } });
});

test("a guest purchase is owned once its email is linked and verified", async ({ page, baseURL, mailbox }) => {
  // Its own Ko-fi-only post: what other specs did to the demo library does not matter here.
  // Removed afterwards, so the specs that count the demo library's cards see it intact.
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const post = await db.post.create({
    data: {
      id: `e2eshop${stamp}`,
      title: `E2E Shop Item ${stamp}`,
      paidContent: true,
      isKofiOnly: true,
      kofiId: `E2EKOFI${stamp}`,
      version: "V1.0",
      orderDate: new Date(),
    },
  });
  createdPostIds.push(post.id);
  const buyer = `guest-buyer-${Date.now()}@example.com`;
  const webhook = `${baseURL}/api/webhooks/kofi`;

  const forged = await sendKofiWebhook(
    webhook,
    kofiPayload({ verification_token: "guess", email: buyer, shop_items: [{ direct_link_code: post.kofiId!, quantity: 1 }] }),
  );
  expect(forged.status).toBe(401);
  expect(await db.purchase.count({ where: { email: buyer } })).toBe(0);

  const delivery = kofiPayload({ verification_token: "e2e-kofi-token", email: buyer, shop_items: [{ direct_link_code: post.kofiId!, quantity: 1 }] });
  expect((await sendKofiWebhook(webhook, delivery)).status).toBe(200);
  expect((await sendKofiWebhook(webhook, delivery)).status).toBe(200); // resent: stored once
  expect(await db.purchase.count({ where: { email: buyer } })).toBe(1);

  const user = await db.user.create({
    data: { email: `account-${Date.now()}@example.com`, fullName: "Late Linker", mailVerified: true, emailVerifiedBy: "CODE", tosAccepted: true },
  });
  await acceptAdultWarning(page);
  await loginAs(page, user.id);
  const card = page.locator(`[data-post-id="${post.id}"]`);
  await page.goto(`/library?search=${encodeURIComponent(post.title)}`);
  await expect(card).toBeVisible();
  await expect(card.getByText("You own this item")).toHaveCount(0);

  await page.goto("/login");
  const panel = page.locator(".shop-email-panel");
  await panel.getByLabel("Ko-fi email").fill(buyer);
  await panel.getByRole("button", { name: "Link Email" }).click();
  await expect(panel.getByLabel("Verification code")).toBeVisible();
  await panel.getByLabel("Verification code").fill(await mailbox.codeFor(buyer));
  await panel.getByRole("button", { name: "Verify Email" }).click();
  await expect(panel.locator(".shop-email-list")).toContainText(buyer);

  await page.goto(`/library?search=${encodeURIComponent(post.title)}`);
  await expect(card.getByText("You own this item")).toBeVisible();
});
