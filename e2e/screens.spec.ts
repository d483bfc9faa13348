// Screenshot comparisons of the main screens at a phone (390 px) and a desktop (1366 px) width,
// in both themes: home, the library as a guest and as the demo supporter, login, the account
// page, the admin page and its user editor. What changes from run to run is held still:
// - the data is the seeded demo content (covers are drawn at seed time from fixed seeds); the
//   admin list is narrowed to one demo account and the editor shows a user made here;
// - each shot is the top of the page at a fixed viewport (not the full page), so rows other
//   specs add further down (users, audit entries, downloads) never move it;
// - animations and the caret are off (toHaveScreenshot's defaults), fonts are the system's;
// - each page is loaded once per width, shot in the dark theme, switched to light and shot again;
// - dates, counters and the audit log are masked.
// Baselines live next to this file (screens.spec.ts-snapshots); review them by eye when they
// change (`npx playwright test e2e/screens.spec.ts --update-snapshots`).
import type { Locator, Page } from "@playwright/test";
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

const VIEWPORTS = [
  ["phone", { width: 390, height: 844 }],
  ["desktop", { width: 1366, height: 900 }],
] as const;
// The dark theme first (the default), then the light one after the header's switch.
const THEMES = ["dark", "light"] as const;

const EDITOR_USER = { email: "screens-editor@example.com", fullName: "Screen Editor" };

type Screen = {
  name: string;
  path: string | (() => Promise<string>);
  as?: "supporter@example.com" | "admin@example.com";
  adultAccepted?: boolean;
  /** Waits for the page's main content before the shot. */
  ready: (page: Page) => Promise<void>;
  mask?: (page: Page) => Locator[];
};

const SCREENS: Screen[] = [
  {
    name: "home",
    path: "/",
    ready: async (page) => {
      await expect(page.getByTestId("home-panel").first()).toBeVisible();
    },
  },
  {
    name: "library-guest",
    path: "/library",
    adultAccepted: true,
    ready: async (page) => {
      await expect(page.getByTestId("post-card").first()).toBeVisible();
    },
  },
  {
    name: "library-supporter",
    path: "/library",
    as: "supporter@example.com",
    adultAccepted: true,
    ready: async (page) => {
      await expect(page.getByTestId("post-card").first()).toBeVisible();
    },
  },
  {
    name: "login",
    path: "/login?tab=login",
    ready: async (page) => {
      await expect(page.getByRole("link", { name: "Continue With Patreon" })).toBeVisible();
    },
  },
  {
    name: "account",
    path: "/login",
    as: "supporter@example.com",
    ready: async (page) => {
      await expect(page.getByTestId("account-tabs")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Change Your Password" })).toBeAttached();
    },
  },
  {
    name: "admin",
    // One demo account in the list: other specs add users, but never this one's twin.
    path: `/admin?search=${encodeURIComponent("admin@example.com")}`,
    as: "admin@example.com",
    ready: async (page) => {
      await expect(page.getByTestId("user-list").locator("tbody tr")).toHaveCount(1);
    },
    // The demo admin's leak-trace number is fixed by the seed (a fresh database per run).
    mask: (page) => [page.getByTestId("audit-log"), page.locator(".admin-interval table")],
  },
  {
    name: "admin-user-editor",
    path: async () => `/admin?search=${encodeURIComponent(EDITOR_USER.email)}&user=${(await editorUser()).id}`,
    as: "admin@example.com",
    ready: async (page) => {
      await expect(page.getByTestId("user-editor")).toBeVisible();
      // The editor takes focus when it opens; the shot is of the page, not the focus ring.
      await page
        .getByTestId("user-editor")
        .getByRole("heading", { level: 2 })
        .evaluate((heading: HTMLElement) => heading.blur());
      // Scrolled to the editor as an anchor would: its heading lands below the sticky header.
      await page.getByTestId("user-editor").evaluate((editor) => editor.scrollIntoView({ block: "start" }));
    },
    // The list above is scrolled away (its number would be masked over the sticky header).
    mask: (page) => [page.getByTestId("user-editor").locator("p.muted strong").first()],
  },
];

/** A user of this spec alone, always in the same state: no downloads, pledges or unlocks. */
async function editorUser() {
  const user = await db.user.upsert({
    where: { email: EDITOR_USER.email },
    create: { ...EDITOR_USER, mailVerified: true },
    update: { fullName: EDITOR_USER.fullName },
  });
  await db.unlockedContent.deleteMany({ where: { userId: user.id } });
  await db.shopEmail.deleteMany({ where: { userId: user.id } });
  return user;
}

test.afterAll(async () => {
  await db.user.deleteMany({ where: { email: EDITOR_USER.email } });
});

for (const screen of SCREENS) {
  for (const [viewportName, viewport] of VIEWPORTS) {
    test(`${screen.name} at ${viewport.width} px, dark and light theme`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await page.addInitScript(() => localStorage.setItem("theme", "dark"));
      if (screen.adultAccepted) await acceptAdultWarning(page);
      if (screen.as) await loginAs(page, (await db.user.findUniqueOrThrow({ where: { email: screen.as } })).id);
      await page.goto(typeof screen.path === "string" ? screen.path : await screen.path());
      await page.waitForLoadState("networkidle");
      await screen.ready(page);
      // Every image on screen loaded (the ones below the fold are lazy and not in the shot).
      await page.evaluate(() => document.fonts.ready);
      await page.waitForFunction(() =>
        [...document.images].every((image) => {
          const box = image.getBoundingClientRect();
          return box.bottom < 0 || box.top > window.innerHeight || image.complete;
        }),
      );
      for (const theme of THEMES) {
        if (theme === "light") {
          // The header's theme switch, as a click event that leaves no hover or focus ring in the shot.
          await page.getByTestId("theme-toggle").dispatchEvent("click");
        }
        await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
        await expect(page.getByTestId("theme-toggle")).toHaveAttribute("aria-pressed", String(theme === "light"));
        await expect(page).toHaveScreenshot(`${screen.name}-${viewportName}-${theme}.png`, {
          mask: [page.locator("time"), page.locator(".library-count"), ...(screen.mask?.(page) ?? [])],
          maxDiffPixelRatio: 0.01,
        });
      }
    });
  }
}
