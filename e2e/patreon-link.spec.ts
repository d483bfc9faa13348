// Linking the support platform (Patreon) from the account page through the fake provider:
// real OAuth redirects on localhost, then the panel shows the tier.
import { db, expect, loginAs, test } from "./fixtures";

async function linkThroughFakeProvider(page: import("@playwright/test").Page, patreonUserId: string, tierId: string) {
  const panel = page.locator(".support-platform-panel");
  await expect(panel.getByText("Link your Patreon account")).toBeVisible();
  await panel.getByRole("link", { name: "Link" }).click();
  await expect(page.getByRole("heading", { name: "Fake Patreon" })).toBeVisible();
  await page.getByLabel("User id").fill(patreonUserId);
  await page.getByLabel("Name").fill("Linked Patron");
  await page.getByLabel("Entitled tier id").fill(tierId);
  await page.getByRole("button", { name: "Authorize" }).click();
  await page.waitForURL(/\/login/);
}

test.describe("support-platform linking", () => {
  test("links the account and shows the current tier title", async ({ page }) => {
    const user = await db.user.create({
      data: { email: `patreon-link-${Date.now()}@example.com`, fullName: "Link Tester", mailVerified: true, emailVerifiedBy: "CODE" },
    });
    const patreonUserId = `e2e-patron-${user.number}`;
    await loginAs(page, user.id);
    await page.goto("/login");
    await linkThroughFakeProvider(page, patreonUserId, "8825009");
    // The toast says what happened: the account was linked (the user was already logged in).
    await expect(page.getByTestId("toast").filter({ hasText: "Patreon account linked." })).toBeVisible();
    await expect(page.getByTestId("toast").filter({ hasText: "Logged in successfully." })).toHaveCount(0);

    const panel = page.locator(".support-platform-panel");
    await expect(panel.getByTestId("current-tier")).toHaveText("Tier 2");
    await expect(panel.getByRole("link", { name: "Link" })).toHaveCount(0);
    const stored = await db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored.patreonId).toBe(patreonUserId);
    expect(stored.currentTierId).toBe("8825009");
  });

  test("a tier this site does not know shows as Unknown Tier", async ({ page }) => {
    const user = await db.user.create({
      data: { email: `patreon-unknown-${Date.now()}@example.com`, fullName: "Unknown Tier", mailVerified: true, emailVerifiedBy: "CODE" },
    });
    await loginAs(page, user.id);
    await page.goto("/login");
    await linkThroughFakeProvider(page, `e2e-patron-u-${user.number}`, "99999999");
    await expect(page.locator(".support-platform-panel").getByTestId("current-tier")).toHaveText("Unknown Tier");
  });

  test("a linked account without a tier shows None", async ({ page }) => {
    const user = await db.user.create({
      data: {
        email: `patreon-none-${Date.now()}@example.com`,
        fullName: "No Tier",
        mailVerified: true,
        emailVerifiedBy: "CODE",
        patreonId: `e2e-none-${Date.now()}`,
      },
    });
    await loginAs(page, user.id);
    await page.goto("/login");
    await expect(page.locator(".support-platform-panel").getByTestId("current-tier")).toHaveText("None");
  });
});
