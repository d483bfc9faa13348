// The login and account pages fit a phone screen and a wide one, in both themes.
import { db, expect, loginAs, test } from "./fixtures";

for (const theme of ["dark", "light"] as const) {
  for (const viewport of [
    { width: 375, height: 740 },
    { width: 1280, height: 900 },
  ]) {
    test(`login and account pages fit ${viewport.width}px in the ${theme} theme`, async ({ page }) => {
      await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
      await page.setViewportSize(viewport);
      await page.goto("/login?tab=signup");
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      await expect(page.getByRole("link", { name: "Continue With Google" })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/signup-${theme}-${viewport.width}.png`, fullPage: true });

      const user = await db.user.create({
        data: { email: `layout-${theme}-${viewport.width}-${Date.now()}@example.com`, fullName: "Layout Person", mailVerified: true, canBeAdmin: true },
      });
      await loginAs(page, user.id);
      await page.goto("/login");
      await expect(page.getByRole("heading", { name: "Welcome, Layout Person!" })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/account-${theme}-${viewport.width}.png`, fullPage: true });
    });
  }
}
