// Linking a shop (Ko-fi) email on the account page with the code that was mailed, with and
// without JavaScript; a purchase made earlier as a guest then counts for the account.
import type { Page } from "@playwright/test";
import { db, expect, loginAs, test, type Mailbox } from "./fixtures";

async function newUser(label: string) {
  const stamp = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  return db.user.create({ data: { email: `${label}-${stamp}@example.com`, fullName: `Shop ${label}`, mailVerified: true, emailVerifiedBy: "CODE" } });
}

async function linkAndVerify(page: Page, mailbox: Mailbox, shopEmail: string) {
  const panel = page.locator(".shop-email-panel");
  await panel.getByLabel("Ko-fi email").fill(shopEmail);
  await panel.getByRole("button", { name: "Link Email" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Verification code sent to your email." })).toBeVisible();
  await expect(panel.getByText(shopEmail)).toBeVisible();
  const code = await mailbox.codeFor(shopEmail);
  await panel.getByLabel("Verification code").fill(code);
  await panel.getByRole("button", { name: "Verify Email" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Email verified successfully." })).toBeVisible();
  await expect(panel.locator(".shop-email-list")).toContainText(shopEmail);
  await expect(panel.getByLabel("Verification code")).toHaveCount(0);
}

test.describe("shop email linking", () => {
  test("with JavaScript: link, wrong code, resend countdown, verify; a guest purchase becomes the user's", async ({ page, mailbox }) => {
    const user = await newUser("js");
    const shopEmail = `buyer-${user.id}@example.com`;
    // Bought as a guest before linking.
    await db.purchase.create({
      data: {
        email: shopEmail,
        kofiItemCode: "e2e-guest-item",
        transactionId: `e2e-${user.id}`,
        source: "WEBHOOK",
        purchasedAt: new Date("2024-01-01T00:00:00Z"),
      },
    });
    await loginAs(page, user.id);
    await page.goto("/login");
    const panel = page.locator(".shop-email-panel");
    await panel.getByLabel("Ko-fi email").fill(shopEmail);
    await panel.getByRole("button", { name: "Link Email" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Verification code sent to your email." })).toBeVisible();
    // The resend button waits out the cooldown.
    await expect(panel.getByRole("button", { name: "Resend verification code" })).toBeDisabled();
    await expect(panel.getByText(/Resend available in \d+ s/)).toBeVisible();

    const code = await mailbox.codeFor(shopEmail);
    await panel.getByLabel("Verification code").fill(code === "000000" ? "111111" : "000000");
    await panel.getByRole("button", { name: "Verify Email" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Invalid verification code." })).toBeVisible();

    await panel.getByLabel("Verification code").fill(code);
    await panel.getByRole("button", { name: "Verify Email" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Email verified successfully." })).toBeVisible();
    await expect(panel.locator(".shop-email-list")).toContainText(shopEmail);

    const row = await db.shopEmail.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.verifiedEmail).toBe(shopEmail);
    const owned = await db.purchase.count({ where: { email: row.verifiedEmail! } });
    expect(owned).toBe(1);
  });

  test("the resend button counts down from 60 seconds and then allows a resend", async ({ page }) => {
    // The page's clock stands still unless the test moves it (pauseAt after the page loaded).
    await page.clock.install();
    const user = await newUser("countdown");
    await loginAs(page, user.id);
    await page.goto("/login");
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
    const panel = page.locator(".shop-email-panel");
    await panel.getByLabel("Ko-fi email").fill(`countdown-${user.id}@example.com`);
    const clicked = Date.now();
    await panel.getByRole("button", { name: "Link Email" }).click();
    const resend = panel.getByRole("button", { name: "Resend verification code" });
    const countdown = panel.getByText(/Resend available in \d+ s/);
    await expect(countdown).toBeVisible();
    await expect(resend).toBeDisabled();
    // The server's count starts at 60 and loses only the seconds its answer took, however many.
    const start = Number(/(\d+) s/.exec((await countdown.textContent()) ?? "")?.[1]);
    expect(start).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - clicked) / 1000));
    expect(start).toBeLessThanOrEqual(60);
    await page.clock.runFor(30_000);
    await expect(panel.getByText(`Resend available in ${start - 30} s`)).toBeVisible();
    await expect(resend).toBeDisabled();
    await page.clock.runFor((start - 30) * 1000 + 1000);
    await expect(resend).toBeEnabled();
    await expect(panel.getByText(/Resend available/)).toHaveCount(0);
  });

  test("cancel a pending email", async ({ page }) => {
    const user = await newUser("cancel");
    await loginAs(page, user.id);
    await page.goto("/login");
    const panel = page.locator(".shop-email-panel");
    await panel.getByLabel("Ko-fi email").fill(`cancel-${user.id}@example.com`);
    await panel.getByRole("button", { name: "Link Email" }).click();
    await panel.getByRole("button", { name: "Cancel Verification" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Verification process canceled." })).toBeVisible();
    await expect(panel.getByLabel("Ko-fi email")).toBeVisible();
    expect(await db.shopEmail.count({ where: { userId: user.id } })).toBe(0);
  });
});

test.describe("shop email linking without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the plain forms link and verify", async ({ page, mailbox }) => {
    const user = await newUser("nojs");
    await loginAs(page, user.id);
    await page.goto("/login");
    await linkAndVerify(page, mailbox, `nojs-${user.id}@example.com`);
    expect(await db.shopEmail.count({ where: { userId: user.id, verifiedAt: { not: null } } })).toBe(1);
  });
});
