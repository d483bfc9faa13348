// axe-core on every page, in the dark and the light theme, for a guest, a logged-in user and an
// admin where the page differs for them: zero WCAG 2.x A/AA violations. Every rule runs in the
// dark theme; the light theme runs the colour rules. /admin/insights is scanned in
// e2e/insights.spec.ts, with every table open.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { COLOUR_RULES, expectAccessibleInBothThemes, switchTheme } from "./axe";
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

type Role = "guest" | "fan" | "admin";
type PageCase = {
  name: string;
  path: string;
  roles: Role[];
  /** Runs after the page has loaded, before the scan (e.g. open a modal). */
  prepare?: (page: Page) => Promise<void>;
  adultAccepted?: boolean;
};

const PAGES: PageCase[] = [
  { name: "home", path: "/", roles: ["guest", "fan"] },
  {
    name: "library with the 18+ warning",
    path: "/library",
    roles: ["guest"],
    prepare: async (page) => {
      await expect(page.getByRole("dialog")).toBeVisible();
    },
  },
  { name: "library after accepting the 18+ warning", path: "/library", roles: ["guest", "fan", "admin"], adultAccepted: true },
  { name: "library as a list", path: "/library?layout=list", roles: ["guest", "fan"], adultAccepted: true },
  { name: "login tab", path: "/login?tab=login", roles: ["guest"] },
  { name: "sign-up tab", path: "/login?tab=signup", roles: ["guest"] },
  { name: "login page logged in", path: "/login", roles: ["fan", "admin"] },
  { name: "forgot password", path: "/forgot-password", roles: ["guest"] },
  { name: "auth callback error", path: "/auth/callback?error=access_denied", roles: ["guest"] },
  { name: "infos", path: "/infos", roles: ["guest"] },
  { name: "inspiration vote", path: "/inspiration-vote", roles: ["guest", "fan", "admin"] },
  { name: "admin", path: "/admin", roles: ["admin"] },
  { name: "admin releases", path: "/admin/releases", roles: ["admin"] },
  { name: "admin game patches", path: "/admin/patches", roles: ["admin"] },
  {
    // The demo's patch day: the post page's compatibility section (players' answers; the admin's mark and Accept).
    name: "a post page with its game compatibility",
    path: "/infos",
    roles: ["guest", "admin"],
    adultAccepted: true,
    prepare: async (page) => {
      const post = await db.post.findFirstOrThrow({ where: { title: "Autumn Hair Collection" } });
      await page.goto(`/library/${post.id}`);
      await expect(page.getByRole("heading", { name: "Game compatibility" })).toBeVisible();
    },
  },
  { name: "admin post table", path: "/admin/posts", roles: ["admin"] },
  {
    name: "a post's editor, with its release steps",
    path: "/admin/posts?search=Midnight%20Observatory",
    roles: ["admin"],
    adultAccepted: true,
    prepare: async (page) => {
      await page.getByRole("link", { name: "Midnight Observatory" }).click();
      await expect(page.getByLabel("Preset")).toBeVisible();
    },
  },
  { name: "updates for you", path: "/account/updates", roles: ["fan"] },
  { name: "my downloads", path: "/account/downloads", roles: ["fan"] },
  { name: "delete my account", path: "/account/delete", roles: ["fan"] },
  { name: "export my data", path: "/account/export", roles: ["fan"] },
  {
    name: "updates by feed and mail, with a new feed link",
    path: "/account/notifications",
    roles: ["fan"],
    prepare: async (page) => {
      await page.getByRole("button", { name: /feed link/ }).click();
      await expect(page.getByLabel("Feed address")).toBeVisible();
    },
  },
  {
    name: "API tokens, with a new token",
    path: "/account/tokens",
    roles: ["fan"],
    prepare: async (page) => {
      await page.getByLabel("Label").fill("Axe check");
      await page.getByRole("button", { name: "Make token" }).click();
      await expect(page.getByLabel('Token "Axe check"')).toBeVisible();
    },
  },
  { name: "unsubscribe with an unknown link", path: `/unsubscribe/${"A".repeat(43)}`, roles: ["guest"] },
  { name: "check access without JavaScript", path: "/admin/access-check?userId=none&post=none", roles: ["admin"] },
  { name: "not found", path: "/no-such-page-here", roles: ["guest"] },
];

const USERS: Record<Exclude<Role, "guest">, string> = { fan: "fan@example.com", admin: "admin@example.com" };

// Each case is independent and only reads: they spread over every worker.
test.describe.configure({ mode: "parallel" });

for (const pageCase of PAGES) {
  for (const role of pageCase.roles) {
    test(`axe: ${pageCase.name} as ${role}, dark and light theme`, async ({ page }) => {
      if (pageCase.adultAccepted) await acceptAdultWarning(page);
      if (role !== "guest") await loginAs(page, (await db.user.findUniqueOrThrow({ where: { email: USERS[role] } })).id);

      await page.goto(pageCase.path);
      // Scan the hydrated page: client-only parts (modals, toggles) are in place by then.
      await page.waitForLoadState("networkidle");
      if (pageCase.prepare) await pageCase.prepare(page);

      await expectAccessibleInBothThemes(page);
    });
  }
}

test("axe: the scan reports a violation when one is there", async ({ page }) => {
  await page.goto("/infos");
  await page.waitForLoadState("networkidle");
  await page.evaluate(() => {
    const input = document.createElement("input");
    input.type = "text";
    input.id = "unlabelled-probe";
    document.body.append(input);
  });
  await expect(page.locator("#unlabelled-probe")).toBeAttached();
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((violation) => violation.id)).toContain("label");
});

test("axe: the colour scan of the light theme reports text that is too faint", async ({ page }) => {
  await page.goto("/infos");
  await page.waitForLoadState("networkidle");
  await switchTheme(page, "light");
  await page.evaluate(() => {
    const faint = document.createElement("p");
    faint.id = "faint-probe";
    faint.textContent = "Barely there";
    faint.style.cssText = "color: #eeeeee; background: #ffffff";
    document.querySelector("main")!.append(faint);
  });
  await expect(page.locator("#faint-probe")).toBeVisible();
  const results = await new AxeBuilder({ page }).withRules(COLOUR_RULES).analyze();
  expect(results.violations.map((violation) => violation.id)).toContain("color-contrast");
});
