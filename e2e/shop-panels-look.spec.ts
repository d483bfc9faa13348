// The account panels on a phone and a wide screen, in both themes: nothing overflows, and the
// stylesheet of the panels is applied.
import { db, expect, loginAs, test } from "./fixtures";

for (const theme of ["dark", "light"] as const) {
  test(`account panels fit a phone screen (${theme})`, async ({ page }) => {
    const user = await db.user.create({
      data: {
        email: `look-${theme}-${Date.now()}@example.com`,
        fullName: "Look Tester",
        mailVerified: true,
        patreonId: `look-${theme}-${Date.now()}`,
        currentTierId: "8825009",
        shopEmails: {
          create: [
            {
              email: `verified-${theme}-a-very-long-address-for-wrapping@example.com`,
              verifiedEmail: `verified-${theme}-a-very-long-address-for-wrapping@example.com`,
              verifiedAt: new Date(),
            },
            { email: `pending-${theme}@example.com` },
          ],
        },
      },
    });
    await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
    await loginAs(page, user.id);
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto("/login");
    const shopPanel = page.locator(".shop-email-panel");
    await expect(shopPanel.getByText(`pending-${theme}@example.com`)).toBeVisible();
    await expect(page.locator(".support-platform-panel").getByTestId("current-tier")).toHaveText("Tier 2");
    // The panels' own stylesheet is in effect (grid layout of .account-panel).
    expect(await shopPanel.evaluate((element) => getComputedStyle(element).display)).toBe("grid");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shopPanel.screenshot({ path: test.info().outputPath(`shop-panel-${theme}.png`) });
  });
}
