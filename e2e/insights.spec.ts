// The insights page in Chromium: known data on fixed dates in the past, read through a custom
// range, so screenshots never depend on today. Desktop and phone screenshots, axe in both
// themes with every data table open, the range form without JavaScript, and the 403s. The
// year 2022 is used by no other spec, so their data never shows in these charts.
import type { Page } from "@playwright/test";
import { expectAccessibleInBothThemes } from "./axe";
import { db, expect, loginAs, test } from "./fixtures";

const RANGE = "/admin/insights?range=custom&from=2022-04-01&to=2022-06-30";
const PREFIX = "e2e-ins-";

async function seedInsights() {
  // Idempotent: a retried run starts from the same rows.
  await db.download.deleteMany({ where: { id: { startsWith: PREFIX } } });
  await db.pledgeEvent.deleteMany({ where: { id: { startsWith: PREFIX } } });
  await db.purchase.deleteMany({ where: { id: { startsWith: PREFIX } } });
  await db.user.deleteMany({ where: { id: { startsWith: PREFIX } } });
  const posts = await db.post.findMany({ orderBy: { id: "asc" }, take: 4, select: { id: true, version: true } });
  const users = Array.from({ length: 12 }, (_, index) => ({
    id: `${PREFIX}u${index}`,
    email: `${PREFIX}${index}@example.com`,
    fullName: `Insights ${index}`,
    mailVerified: true,
  }));
  await db.user.createMany({ data: users });
  const sources = ["FREE", "TIER", "TIER", "EARLY_SUPPORTER", "PURCHASE", "GRANT"] as const;
  const downloads = [];
  for (let day = 0; day < 91; day++) {
    const perDay = 2 + ((day * 7) % 9);
    for (let n = 0; n < perDay; n++) {
      const post = posts[(day + n) % posts.length]!;
      downloads.push({
        id: `${PREFIX}d${day}-${n}`,
        userId: users[(day * 3 + n) % users.length]!.id,
        postId: post.id,
        version: n % 3 === 0 ? "V0.9" : post.version,
        accessSource: sources[(day + n) % sources.length]!,
        createdAt: new Date(Date.UTC(2022, 3, 1 + day, (n * 5) % 24, 30)),
      });
    }
  }
  await db.download.createMany({ data: downloads });
  await db.pledgeEvent.createMany({
    data: users.slice(0, 8).flatMap((user, index) => [
      {
        id: `${PREFIX}start-${index}`,
        userId: user.id,
        type: "pledge_start",
        amountCents: 500,
        date: new Date(Date.UTC(2022, 2 + (index % 3), 5 + index)),
        tierId: ["8824971", "8825009", "21786318"][index % 3]!,
        paymentStatus: "Paid",
      },
      ...(index % 4 === 0
        ? [
            {
              id: `${PREFIX}stop-${index}`,
              userId: user.id,
              type: "pledge_delete",
              amountCents: 0,
              date: new Date(Date.UTC(2022, 5, 10 + index)),
              tierId: null,
              paymentStatus: null,
            },
          ]
        : []),
    ]),
  });
  await db.purchase.createMany({
    data: Array.from({ length: 9 }, (_, index) => ({
      id: `${PREFIX}p${index}`,
      email: `${PREFIX}${index}@example.com`,
      kofiItemCode: `e2e-item-${index % 3}`,
      transactionId: `${PREFIX}tx${index}`,
      source: "WEBHOOK" as const,
      purchasedAt: new Date(Date.UTC(2022, 3 + (index % 3), 3 + index)),
      amountCents: index % 4 === 0 ? null : 450 + index * 50,
      currency: index % 4 === 0 ? null : "EUR",
    })),
  });
  // The demo seed already ran the insights job, and download charts read its rollups for past
  // days: roll these rows in as the job's next run would (jobs are off in this server).
  const { refreshInsightsRollups } = await import("../app/models/insights/rollup.server");
  await refreshInsightsRollups(new Date(), { full: true });
}

async function loginAsAdmin(page: Page) {
  await loginAs(page, (await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } })).id);
}

test.beforeAll(seedInsights);

for (const [name, viewport, theme] of [
  ["desktop", { width: 1280, height: 900 }, "dark"],
  ["desktop", { width: 1280, height: 900 }, "light"],
  ["phone", { width: 390, height: 844 }, "dark"],
] as const) {
  test(`insights look right on ${name}, ${theme} theme`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
    await loginAsAdmin(page);
    await page.goto(RANGE);
    await expect(page.getByRole("heading", { name: "Insights", level: 1 })).toBeVisible();
    await expect(page.getByTestId("insights-range")).toHaveText("2022-04-01 to 2022-06-30, whole days in UTC.");
    await page.waitForLoadState("networkidle");
    // The vote round is not bound to the range (other specs like ideas today): masked.
    await expect(page).toHaveScreenshot(`insights-${name}-${theme}.png`, {
      fullPage: true,
      mask: [page.getByTestId("insights-inspiration")],
      maxDiffPixelRatio: 0.01,
    });
  });
}

test("axe: insights with every table open, dark and light theme", async ({ page }) => {
  await loginAsAdmin(page);
  // April alone: every table is the same component with a third of the rows, and the scan's
  // cost grows with the cells it checks.
  await page.goto("/admin/insights?range=custom&from=2022-04-01&to=2022-04-30");
  await page.waitForLoadState("networkidle");
  const tables = page.locator("details.insights-table");
  await expect(tables).not.toHaveCount(0);
  for (const summary of await tables.locator("> summary").all()) await summary.click();
  for (const table of await tables.all()) expect(await table.locator("tbody tr").count()).toBeGreaterThan(0);
  await expectAccessibleInBothThemes(page);
});

test("the range form and the CSV exports work without JavaScript", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await loginAsAdmin(page);
  await page.goto("/admin");
  await page.getByLabel("Time range").selectOption("7");
  await page.getByRole("button", { name: "Show insights" }).click();
  await expect(page).toHaveURL(/\/admin\/insights\?range=7$/);
  await page.getByLabel("Time range").selectOption("custom");
  await page.getByLabel("From (custom)").fill("2022-04-01");
  await page.getByLabel("To (custom)").fill("2022-04-30");
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await expect(page.getByTestId("insights-range")).toHaveText("2022-04-01 to 2022-04-30, whole days in UTC.");
  const csvHref = await page.getByTestId("insights-downloads").getByRole("link", { name: /CSV/ }).getAttribute("href");
  const csv = await page.request.get(csvHref!);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split("\n");
  expect(lines).toHaveLength(31);
  // A wrong custom range is explained, next to the form.
  await page.getByLabel("From (custom)").fill("2022-05-01");
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await expect(page.getByRole("alert")).toHaveText("The end date must not be before the start date.");
  await context.close();
});

test("non-admins get 403 on the page and the exports", async ({ page }) => {
  expect((await page.request.get(RANGE)).status()).toBe(403);
  await loginAs(page, (await db.user.findUniqueOrThrow({ where: { email: "fan@example.com" } })).id);
  expect((await page.request.get(RANGE)).status()).toBe(403);
  expect((await page.request.get("/admin/insights/downloads.csv?range=30")).status()).toBe(403);
  expect((await page.request.get("/admin/insights/shop.csv?range=30")).status()).toBe(403);
});

test("with JavaScript, a wrong custom range is explained next to the form, never replaced by another range", async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto("/admin/insights?range=30");
  await page.waitForLoadState("networkidle");
  // Dates typed while a preset is still chosen: the dates win (the select follows them).
  await page.getByLabel("From (custom)").fill("2022-05-01");
  await page.getByLabel("To (custom)").fill("2022-04-01");
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await expect(page.getByRole("alert")).toHaveText("The end date must not be before the start date.");
  await expect(page.getByTestId("insights-range")).toHaveCount(0);
  await expect(page.getByLabel("To (custom)")).toHaveAttribute("aria-invalid", "true");
  // Custom chosen explicitly: the same message.
  await page.goto("/admin/insights?range=30");
  await page.getByLabel("Time range").selectOption("custom");
  await page.getByLabel("From (custom)").fill("2022-05-01");
  await page.getByLabel("To (custom)").fill("2022-04-01");
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await expect(page.getByRole("alert")).toHaveText("The end date must not be before the start date.");
  // Choosing a preset after a custom range shows that preset, whatever dates the form held.
  await page.goto(RANGE);
  await page.getByLabel("Time range").selectOption("7");
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await expect(page.getByTestId("insights-range")).not.toContainText("2022-04-01");
  await expect(page.getByLabel("Time range")).toHaveValue("7");
});
