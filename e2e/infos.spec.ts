import { expect, test } from "./fixtures";

// Script and console errors in the page fail a test: the failOnPageErrors fixture (fixtures.ts).
test("/infos#privacy opens the privacy policy, and a hash change opens the terms", async ({ page }) => {
  await page.goto("/infos#privacy");
  const privacy = page.locator("details#privacy");
  await expect(privacy).toHaveAttribute("open", "");
  await expect(privacy.getByText(/trace code/).first()).toBeVisible();
  const terms = page.locator("details#tos");
  await expect(terms).not.toHaveAttribute("open", "");

  await page.evaluate(() => {
    window.location.hash = "tos";
  });
  await expect(terms).toHaveAttribute("open", "");
  await expect(terms.getByText("23 December 2024")).toBeVisible();
  await expect(terms.getByText(/18 or older/).first()).toBeVisible();

  for (const title of ["About Me", "Permissions & Terms of Service", "Privacy Policy", "Commissions", "Kofi Commissions"]) {
    await expect(page.locator("summary", { hasText: title }).first()).toBeVisible();
  }
  // A closed section opens with the keyboard.
  const kofi = page.locator("details#kofi-commissions");
  await kofi.locator("summary").focus();
  await page.keyboard.press("Enter");
  await expect(kofi).toHaveAttribute("open", "");
});

test("the accordion is as wide as the page content", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/infos");
  const widths = await page.locator(".accordion").evaluate((accordion) => {
    const parent = accordion.parentElement!;
    const style = getComputedStyle(parent);
    const content = parent.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { accordion: accordion.getBoundingClientRect().width, content };
  });
  expect(Math.abs(widths.accordion - widths.content)).toBeLessThan(1);
});
