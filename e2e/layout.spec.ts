import { acceptAdultWarning, db, expect, test } from "./fixtures";

test("home shows the navigation and the seeded panels", async ({ page }) => {
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const label of ["Home", "Library", "Infos", "Inspiration Vote"]) {
    await expect(nav.getByRole("link", { name: label, exact: true })).toBeVisible();
  }
  await expect(nav.getByTestId("account-link")).toHaveText("Login");
  await expect(page.getByRole("heading", { name: "Support me on Patreon" })).toBeVisible();
});

test("the theme defaults to dark, toggles, and survives a reload", async ({ page }) => {
  await page.goto("/");
  const html = page.locator("html");
  await expect(html).toHaveAttribute("data-theme", "dark");
  await page.getByTestId("theme-toggle").click();
  await expect(html).toHaveAttribute("data-theme", "light");
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("light");
  await page.reload();
  await expect(html).toHaveAttribute("data-theme", "light");
  await page.getByTestId("theme-toggle").click();
  await expect(html).toHaveAttribute("data-theme", "dark");
});

test("the theme toggle shows the icon of the applied theme before any script of the app runs", async ({ page }) => {
  await page.goto("/infos");
  await page.evaluate(() => localStorage.setItem("theme", "light"));
  // Only the inline boot script runs: the app's script bundles never load (its styles do), so React never hydrates.
  await page.route("**/assets/**", (route) => (route.request().resourceType() === "script" ? route.abort() : route.continue()));
  for (const path of ["/", "/infos", "/library"]) {
    await page.goto(path);
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    await expect(page.getByTestId("theme-toggle")).toHaveText("☾", { useInnerText: true });
  }
});

test("a token query parameter is stored and leads to the library", async ({ page }) => {
  await page.goto("/infos?token=abc123");
  await page.waitForURL("**/library");
  expect(await page.evaluate(() => localStorage.getItem("token"))).toBe("abc123");
});

test("an unknown address shows the styled 404 page", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to Home" })).toBeVisible();
  // The id of the request that rendered it, for a report: still there once the page is hydrated.
  const requestId = response?.headers()["x-request-id"];
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  await page.waitForLoadState("networkidle");
  await expect(page.getByText(`If you report this, quote the request id ${requestId}.`)).toBeVisible();
});

test("an error page reached by a client-side navigation names the request whose answer failed", async ({ page }) => {
  // A post removed after the library was drawn: its card still links to it, and the click fetches its data.
  const id = `gone${Date.now().toString(36)}`;
  await db.post.create({ data: { id, title: `Soon gone ${id}`, paidContent: false, orderDate: new Date("2000-01-01T00:00:00Z") } });
  try {
    await acceptAdultWarning(page);
    await page.goto("/library");
    await page.waitForLoadState("networkidle");
    const link = page.getByRole("link", { name: `Soon gone ${id}` }).first();
    await expect(link).toBeVisible();
    await db.post.delete({ where: { id } });
    // The page's data comes from a single-fetch request, whose answer carries its own X-Request-Id.
    const answer = page.waitForResponse((response) => response.url().includes(`/library/${id}.data`));
    await link.click();
    const failed = await answer;
    expect(failed.status()).toBe(404);
    const requestId = failed.headers()["x-request-id"];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page.getByText(`If you report this, quote the request id ${requestId}.`)).toBeVisible();
  } finally {
    await db.post.deleteMany({ where: { id } });
  }
});
