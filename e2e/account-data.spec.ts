// The account area: its tab row (library first, then Settings, Export and Delete), "Download
// my data", "Delete my account" (red, with what goes), and My downloads' empty state, with and
// without JavaScript.
import bcrypt from "bcryptjs";
import { readFile } from "node:fs/promises";
import { db, expect, loginAs, test } from "./fixtures";

async function person(label: string) {
  return db.user.create({
    data: {
      email: `${label}-${Date.now().toString(36)}@example.com`,
      fullName: `Person ${label}`,
      mailVerified: true,
      emailVerifiedBy: "CODE",
      passwordHash: await bcrypt.hash("Password1!", 4),
    },
  });
}

const TAB_ORDER = ["Updates", "My downloads", "Feed and mails", "API tokens", "Settings", "Export my data", "Delete account"];

for (const javaScriptEnabled of [true, false]) {
  test.describe(`${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("the account tabs lead to each page, the library's first, and mark the current one", async ({ page }) => {
      const user = await person(`tabs-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/login");
      const tabs = page.getByRole("navigation", { name: "Account" });
      await expect(tabs.getByRole("link")).toHaveText(TAB_ORDER);
      await expect(tabs.getByRole("link", { name: "Settings" })).toHaveAttribute("aria-current", "page");
      await expect(tabs.locator('[aria-current="page"]')).toHaveCount(1);
      // Settings holds the profile, Ko-fi, Patreon and the password.
      await expect(page.getByRole("heading", { name: `Welcome, Person tabs-${javaScriptEnabled}!` })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Change Your Password" })).toBeVisible();

      const pages: [string, string, string][] = [
        ["Updates", "/account/updates", "Updates for you"],
        ["My downloads", "/account/downloads", "My downloads"],
        ["Feed and mails", "/account/notifications", "Updates by feed and mail"],
        ["API tokens", "/account/tokens", "API tokens"],
        ["Export my data", "/account/export", "Export my data"],
        ["Delete account", "/account/delete", "Delete my account"],
        ["Settings", "/login", `Welcome, Person tabs-${javaScriptEnabled}!`],
      ];
      for (const [tab, path, heading] of pages) {
        await tabs.getByRole("link", { name: tab }).click();
        await expect(page).toHaveURL(new RegExp(`${path}$`));
        await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
        await expect(tabs.getByRole("link", { name: tab })).toHaveAttribute("aria-current", "page");
        await expect(tabs.locator('[aria-current="page"]')).toHaveCount(1);
      }
      await db.user.delete({ where: { id: user.id } });
    });

    test("Download my data saves a JSON file of the account", async ({ page }) => {
      const user = await person(`export-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/login");
      await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Export my data" }).click();
      await expect(page.getByRole("heading", { name: "Export my data" })).toBeVisible();
      const download = page.waitForEvent("download");
      await page.getByRole("button", { name: "Download my data" }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^creator-library-data-\d{4}-\d\d-\d\d\.json$/);
      const data = JSON.parse(await readFile(await file.path(), "utf8")) as { account: { email: string } };
      expect(data.account.email).toBe(user.email);
      await db.user.delete({ where: { id: user.id } });
    });

    test("Delete my account asks for the password, then logs out and removes the account", async ({ page }) => {
      const user = await person(`delete-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/login");
      await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Delete account" }).click();
      await expect(page.getByRole("heading", { name: "Delete my account" })).toBeVisible();
      await expect(page.getByTestId("delete-summary")).toContainText("This cannot be undone.");
      await page.getByLabel("Your password").fill("not it");
      await page.getByRole("button", { name: "Delete my account" }).click();
      await expect(page.getByText("Wrong password.")).toBeVisible();
      await page.getByLabel("Your password").fill("Password1!");
      await page.getByRole("button", { name: "Delete my account" }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByTestId("account-link")).toHaveText("Login");
      expect(await db.user.count({ where: { id: user.id } })).toBe(0);
    });

    test("My downloads without any says so and leads to the library", async ({ page }) => {
      const user = await person(`no-downloads-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/account/downloads");
      const empty = page.getByTestId("no-downloads");
      await expect(empty.getByRole("heading", { name: "No downloads yet" })).toBeVisible();
      await expect(page.getByText("No downloads recorded.")).toHaveCount(0);
      await empty.getByRole("link", { name: "Browse the library" }).click();
      await expect(page).toHaveURL(/\/library$/);
      await db.user.delete({ where: { id: user.id } });
    });
  });
}

test("Delete my account is a red, destructive button, not the primary blue one, in both themes", async ({ page }) => {
  const user = await person("delete-look");
  await loginAs(page, user.id);
  for (const theme of ["dark", "light"] as const) {
    await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
    await page.goto("/account/delete");
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    const button = page.getByRole("button", { name: "Delete my account" });
    const colours = await button.evaluate((element) => {
      const style = getComputedStyle(element);
      const probe = document.createElement("span");
      document.body.append(probe);
      probe.style.color = "var(--danger)";
      const danger = getComputedStyle(probe).color;
      probe.style.color = "var(--accent-strong)";
      const accent = getComputedStyle(probe).color;
      probe.remove();
      return { text: style.color, border: style.borderTopColor, background: style.backgroundColor, danger, accent };
    });
    expect(colours.text).toBe(colours.danger);
    expect(colours.border).toBe(colours.danger);
    expect(colours.background).not.toBe(colours.accent);
  }
  await db.user.delete({ where: { id: user.id } });
});

test("the account tabs are reachable by keyboard with a visible focus ring, and scroll sideways on a phone", async ({ page }) => {
  const user = await person("tabs-keys");
  await loginAs(page, user.id);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/account/delete");
  const tabs = page.getByRole("navigation", { name: "Account" });
  // The page never scrolls sideways; the tab row does, and shows the current tab.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  const row = tabs.locator("ul");
  expect(await row.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  await expect(tabs.getByRole("link", { name: "Delete account" })).toBeInViewport({ ratio: 1 });

  const first = tabs.getByRole("link", { name: "Updates" });
  await first.focus();
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Tab");
  await expect(first).toBeFocused();
  const outline = await first.evaluate((element) => {
    const style = getComputedStyle(element);
    return { width: style.outlineWidth, style: style.outlineStyle };
  });
  expect(outline.style).toBe("solid");
  expect(parseFloat(outline.width)).toBeGreaterThanOrEqual(2);
  await page.keyboard.press("Tab");
  await expect(tabs.getByRole("link", { name: "My downloads" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/account\/downloads$/);
  await db.user.delete({ where: { id: user.id } });
});
