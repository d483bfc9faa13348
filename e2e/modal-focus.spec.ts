// Dialogs hold keyboard focus: it moves into them when they open, Tab and Shift+Tab cycle their
// controls, and the page behind them is inert until they close.
import type { Page } from "@playwright/test";
import { db, expect, loginAs, test } from "./fixtures";

/** Whether keyboard focus is inside the element with this test id. */
function focusInside(page: Page, testId: string) {
  return page.evaluate((id) => document.activeElement?.closest(`[data-testid="${id}"]`) !== null, testId);
}

test("the 18+ warning takes focus, keeps it on Tab and Shift+Tab, and the page behind is inert until accepted", async ({ page }) => {
  await page.goto("/library");
  const modal = page.getByTestId("nsfw-modal");
  const accept = modal.getByRole("button", { name: "I am 18 or older" });
  const leave = modal.getByRole("link", { name: "Leave" });
  // Focus is in the dialog as soon as it is shown.
  await expect(accept).toBeFocused();

  await page.keyboard.press("Tab");
  await expect(leave).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(accept).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(leave).toBeFocused();
  for (let press = 0; press < 6; press++) {
    await page.keyboard.press(press % 2 === 0 ? "Tab" : "Shift+Tab");
    expect(await focusInside(page, "nsfw-modal")).toBe(true);
  }

  // Behind it, the skip link, the navigation and the library are inert: not even a click reaches them.
  const skip = page.getByRole("link", { name: "Skip to content", includeHidden: true });
  expect(await skip.evaluate((link) => link.closest("[inert]") !== null)).toBe(true);
  expect(
    await page
      .locator("nav")
      .first()
      .evaluate((nav) => nav.closest("[inert]") !== null),
  ).toBe(true);
  await expect(page.getByTestId("library-content")).toHaveAttribute("inert", "");

  await accept.click();
  await expect(modal).toHaveCount(0);
  // Closed: nothing on the page is inert any more.
  await expect.poll(() => page.evaluate(() => document.querySelectorAll("[inert]").length)).toBe(0);
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.closest("[inert]") ?? null)).toBeNull();
});

test("the Delete panel dialog takes focus like the others", async ({ page }) => {
  const admin = await db.user.create({
    data: { email: `focus-admin-${Date.now()}@example.com`, fullName: "Focus Admin", isAdmin: true, canBeAdmin: true, mailVerified: true },
  });
  const panel = await db.panel.create({ data: { title: "E2E Focus Panel", link: "https://example.com/focus", index: 99 } });
  try {
    await loginAs(page, admin.id);
    await page.goto(`/?delete=${panel.id}`);
    const dialog = page.getByRole("dialog", { name: "Delete panel" });
    await expect(dialog).toContainText("E2E Focus Panel");
    await expect(dialog.getByRole("button", { name: "Delete" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(dialog.getByRole("link", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(dialog.getByRole("button", { name: "Delete" })).toBeFocused();
  } finally {
    await db.panel.deleteMany({ where: { id: panel.id } });
    await db.user.delete({ where: { id: admin.id } });
  }
});
