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

/** Where the text of an element wraps: true when some run of text between break hints spans two lines. */
async function wrapsInsideAWord(page: import("@playwright/test").Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((elements) => {
    const broken: string[] = [];
    for (const element of elements) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (lines.size > 1) broken.push(node.textContent ?? "");
      }
    }
    return broken;
  });
}

test("a long email on a phone wraps only at its dots, dashes and @, not inside a word", async ({ page }) => {
  const stamp = Date.now();
  const email = `a.very.long.email.address.for.testing-${stamp}@some-long-domain-name.example.com`;
  const shop = `another.rather.long.shop.address.${stamp}@example-shop-domain.com`;
  const user = await db.user.create({ data: { email, fullName: "Long Mail Person", mailVerified: true } });
  await db.shopEmail.create({ data: { userId: user.id, email: shop, verifiedEmail: shop, verifiedAt: new Date() } });
  await loginAs(page, user.id);
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto("/login");
  await expect(page.locator(".account-facts dd").first()).toHaveText(email);
  await expect(page.locator(".shop-email-address")).toHaveText(shop);
  expect(await wrapsInsideAWord(page, ".account-facts dd, .shop-email-address")).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
});

test("the account page's card headings share one size, below the page heading", async ({ page }) => {
  const user = await db.user.create({
    data: { email: `headings-${Date.now()}@example.com`, fullName: "Heading Person", mailVerified: true, passwordHash: "x" },
  });
  await loginAs(page, user.id);
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Change Your Password" })).toBeVisible();
  const size = (locator: import("@playwright/test").Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
  const cardHeadings = page.locator(".account-page h2");
  expect(await cardHeadings.count()).toBeGreaterThanOrEqual(3);
  const sizes = await cardHeadings.evaluateAll((elements) => elements.map((element) => parseFloat(getComputedStyle(element).fontSize)));
  expect(new Set(sizes).size).toBe(1);
  expect(await size(page.locator(".account-page h1"))).toBeGreaterThan(sizes[0]!);
});

type Box = { x: number; y: number; width: number; height: number };

/** Whether two boxes keep at least `gap` pixels between them, side by side or one above the other. */
function apart(a: Box, b: Box, gap: number): boolean {
  const horizontal = Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width));
  const vertical = Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height));
  return horizontal >= gap - 0.5 || vertical >= gap - 0.5;
}

for (const card of ["Verify your email", "Welcome"] as const) {
  test(`the ${card} card's buttons form one evenly spaced action row, full width on a phone`, async ({ page }) => {
    const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const user =
      card === "Welcome"
        ? await db.user.create({ data: { googleId: `layout-${stamp}`, signUpMethod: "GOOGLE", mailVerified: false } })
        : await db.user.create({ data: { email: `layout-verify-${stamp}@example.com`, mailVerified: false, passwordHash: "x" } });
    await loginAs(page, user.id);
    const expected =
      card === "Welcome" ? ["Set My Username", "Logout"] : ["Verify my mail and set my username", "Resend verification code", "Cancel Verification", "Logout"];
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto("/login");
      const section = page.locator("section.card").filter({ has: page.getByRole("heading", { name: card, exact: true }) });
      const buttons = section.getByRole("button");
      await expect(buttons).toHaveText(expected);
      const boxes: Box[] = [];
      for (const button of await buttons.all()) boxes.push((await button.boundingBox())!);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) expect(apart(boxes[i]!, boxes[j]!, 8), `${expected[i]} / ${expected[j]} at ${width}px`).toBe(true);
      }
      if (width === 375) {
        // One button per line, all the same width.
        expect(new Set(boxes.map((box) => Math.round(box.width))).size).toBe(1);
      } else {
        expect(new Set(boxes.map((box) => Math.round(box.height))).size).toBe(1);
      }
    }
  });
}
