// The look-and-feel parts that behave: the file picker (click, drop, and without JavaScript),
// the toaster (no repeats, at most three, gone after 5 s, not doubling an inline error) and the
// sign-in buttons (each label on one line on a desktop screen).
import sharp from "sharp";
import type { Page } from "@playwright/test";
import { expectAccessibleInBothThemes } from "./axe";
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

const createdPostIds: string[] = [];
const createdPanelTitles: string[] = [];

test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: { in: createdPostIds } } });
  await db.panel.deleteMany({ where: { title: { in: createdPanelTitles } } });
});

async function loginAsAdmin(page: Page) {
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
  await loginAs(page, admin.id);
}

function pixelPng() {
  return sharp({ create: { width: 32, height: 18, channels: 3, background: "#3366cc" } })
    .png()
    .toBuffer();
}

/** Fills the rest of the Create Panel form, sends it, and checks the panel got its image. */
async function createPanelWithImage(page: Page, name: string) {
  const form = page.locator("section.panel-form");
  const title = `${name} ${Date.now()}`;
  createdPanelTitles.push(title);
  await form.getByLabel("Title").fill(title);
  await form.getByLabel("Link").fill("https://example.com/panel");
  await form.getByRole("button", { name: "Create Panel" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel created successfully." })).toBeVisible();
  expect((await db.panel.findFirstOrThrow({ where: { title } })).imageVersion).toBeTruthy();
}

test.describe("the file picker", () => {
  test("a file chosen by click shows its name and size and is sent with the panel form", async ({ page }) => {
    await loginAsAdmin(page);
    await page.goto("/");
    const form = page.locator("section.panel-form");
    const zone = form.getByTestId("file-drop");
    await expect(form.getByText("Image (png, jpg, jpeg)")).toBeVisible();
    await expect(zone).toContainText("No file chosen");

    const png = await pixelPng();
    const chooser = page.waitForEvent("filechooser");
    await zone.click();
    await (await chooser).setFiles({ name: "clicked.png", mimeType: "image/png", buffer: png });
    await expect(form.getByTestId("file-drop-chosen")).toHaveText(`clicked.png · ${png.length.toFixed(2)} Bytes`);
    await expect(page.getByTestId("panel-image-preview")).toBeVisible();

    await createPanelWithImage(page, "Look Click");
  });

  test("a file dropped on the zone goes into the input and is sent with the form", async ({ page }) => {
    await loginAsAdmin(page);
    await page.goto("/");
    const form = page.locator("section.panel-form");
    const zone = form.getByTestId("file-drop");
    const png = await pixelPng();
    const dataTransfer = await page.evaluateHandle(
      (bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], "dropped.png", { type: "image/png" }));
        return transfer;
      },
      [...png],
    );
    await zone.dispatchEvent("dragenter", { dataTransfer });
    await expect(zone).toHaveClass(/is-dragging/);
    await zone.dispatchEvent("drop", { dataTransfer });
    await expect(zone).not.toHaveClass(/is-dragging/);
    await expect(form.getByTestId("file-drop-chosen")).toContainText("dropped.png");
    expect(await form.getByLabel("Image (png, jpg, jpeg)").evaluate((input: HTMLInputElement) => input.files?.[0]?.name)).toBe("dropped.png");

    await createPanelWithImage(page, "Look Drop");
  });

  test("the input takes keyboard focus and the zone shows it", async ({ page }) => {
    await loginAsAdmin(page);
    await page.goto("/");
    const form = page.locator("section.panel-form");
    await form.getByLabel("Index").focus();
    await page.keyboard.press("Tab");
    await expect(form.getByLabel("Image (png, jpg, jpeg)")).toBeFocused();
    const outline = await form.getByTestId("file-drop").evaluate((zone) => getComputedStyle(zone).outlineStyle);
    expect(outline).toBe("solid");
  });

  test.describe("without JavaScript", () => {
    test.use({ javaScriptEnabled: false });

    test("the native input shows and its file posts with the form", async ({ page }) => {
      await loginAsAdmin(page);
      await page.goto("/");
      const form = page.locator("section.panel-form");
      const input = form.getByLabel("Image (png, jpg, jpeg)");
      await expect(input).toBeVisible();
      const title = `Look No Script ${Date.now()}`;
      createdPanelTitles.push(title);
      await form.getByLabel("Title").fill(title);
      await form.getByLabel("Link").fill("https://example.com/noscript");
      await input.setInputFiles({ name: "plain.png", mimeType: "image/png", buffer: await pixelPng() });
      await form.getByRole("button", { name: "Create Panel" }).click();
      await expect(page.getByTestId("home-panel").filter({ hasText: title })).toBeVisible();
      expect((await db.panel.findFirstOrThrow({ where: { title } })).imageVersion).toBeTruthy();
    });
  });
});

test.describe("the toaster", () => {
  test("shows a repeated message once, at most three at a time, and closes them after 5 s", async ({ page }) => {
    const id = `look${Date.now().toString(36)}`;
    createdPostIds.push(id);
    await db.post.create({ data: { id, title: "Look Toast Post", paidContent: true, version: "V1.0", orderDate: new Date("2000-01-01T00:00:00Z") } });
    await loginAsAdmin(page);
    await acceptAdultWarning(page);
    await page.clock.install();
    await page.goto(`/admin/posts/${id}`);
    await page.waitForLoadState("networkidle");
    // Time stands still from here: only runFor below lets the 5 s pass.
    await page.clock.pauseAt(Date.now() + 60_000);
    const card = page.getByTestId("post-editor");
    const toasts = page.getByTestId("toast");

    await card.getByRole("button", { name: "Save", exact: true }).click();
    await expect(toasts.filter({ hasText: "Post updated." })).toHaveCount(1);
    // The same message again replaces the toast shown (a new one, never two): marking the first
    // one shows when its successor is on the page, before the next message may follow it.
    await toasts.filter({ hasText: "Post updated." }).evaluate((toast) => toast.setAttribute("data-earlier", ""));
    await card.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.locator("[data-testid='toast'][data-earlier]")).toHaveCount(0);
    await expect(card.getByRole("button", { name: "Save", exact: true })).toBeEnabled();
    await expect(toasts.filter({ hasText: "Post updated." })).toHaveCount(1);

    await card.getByRole("button", { name: "Upload file" }).click();
    await expect(toasts.filter({ hasText: "Please select a file first." })).toBeVisible();
    await card.getByRole("button", { name: "Disable" }).click();
    await expect(toasts.filter({ hasText: "Post disabled." })).toBeVisible();
    await card.getByRole("button", { name: "Enable" }).click();
    await expect(toasts.filter({ hasText: "Post enabled." })).toBeVisible();
    // Four different messages: the oldest gave way.
    await expect(toasts).toHaveCount(3);
    await expect(toasts.filter({ hasText: "Post updated." })).toHaveCount(0);

    await page.clock.runFor(5_000);
    await expect(toasts).toHaveCount(0);
  });

  test("with reduced motion a toast neither slides in nor fades out: it shows whole, then leaves at once", async ({ page }) => {
    const id = `look${Date.now().toString(36)}m`;
    createdPostIds.push(id);
    await db.post.create({ data: { id, title: "Look Still Toast Post", paidContent: true, version: "V1.0", orderDate: new Date("2000-01-01T00:00:00Z") } });
    await page.emulateMedia({ reducedMotion: "reduce" });
    await loginAsAdmin(page);
    await acceptAdultWarning(page);
    await page.goto(`/admin/posts/${id}`);
    await page.getByTestId("post-editor").getByRole("button", { name: "Save", exact: true }).click();
    const toast = page.getByTestId("toast").filter({ hasText: "Post updated." });
    await expect(toast).toBeVisible();
    const motion = await toast.evaluate((element) => {
      const style = getComputedStyle(element);
      return { durations: style.animationDuration, delays: style.animationDelay, opacity: style.opacity };
    });
    // Both animations take no time (one duration for the list); the leaving one still waits its 5 s.
    expect(motion).toEqual({ durations: "0s", delays: "0s, 5s", opacity: "1" });
  });

  test("an error the form shows inline is not toasted as well", async ({ page }) => {
    await page.goto("/login?tab=login");
    await page.waitForLoadState("networkidle");
    await page.locator('input[name="email"]').first().fill("fan@example.com");
    await page.locator('input[type="password"]').first().fill("not-the-password");
    await page.locator('input[type="password"]').first().press("Enter");
    const inline = page.locator("main .form-error");
    await expect(inline).toBeVisible();
    const text = (await inline.first().textContent())!.trim();
    // The answer carried the same text as a toast: it stays inline only.
    await page.waitForLoadState("networkidle");
    await expect(page.getByTestId("toast").filter({ hasText: text })).toHaveCount(0);
  });
});

test.describe("an inline error without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("shows next to the form only, and never pops up as a toast on the next page", async ({ page }) => {
    await page.goto("/login?tab=login");
    const login = page.getByRole("form", { name: "Login with email" });
    await login.getByLabel("Email").fill("fan@example.com");
    await login.getByLabel("Password").fill("Not-the-password1");
    await login.getByRole("button", { name: "Login" }).click();
    await expect(login.getByRole("alert")).toHaveText("Invalid email or password.");
    await expect(page.getByTestId("toast")).toHaveCount(0);
    // A toast set by the refusal would be read by the next page's loader.
    await page.goto("/infos");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByTestId("toast")).toHaveCount(0);

    await page.goto("/forgot-password");
    await page.getByRole("button", { name: "Send Reset Code" }).click();
    await expect(page.getByText("Please enter your email.")).toBeVisible();
    await page.goto("/infos");
    await expect(page.getByTestId("toast")).toHaveCount(0);
  });
});

test("the sign-in buttons keep their labels on one line at 1366 px, in both themes", async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 900 });
  for (const theme of ["dark", "light"] as const) {
    await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
    await page.goto("/login?tab=login");
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    for (const name of ["Patreon", "Google", "Discord"]) {
      const button = page.getByRole("link", { name: `Continue With ${name}` });
      await expect(button).toBeVisible();
      // The text's own line boxes (the label is a flex item, so its box alone would say one).
      const lines = await button.locator(".provider-label").evaluate((label) => {
        const range = document.createRange();
        range.selectNodeContents(label);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      });
      expect(lines, `${name} label lines`).toBe(1);
      expect(await button.locator("svg").count()).toBe(1);
    }
  }
});

// ------------------------------------------------------------ admin: long cards and tables

/** Text line boxes of an element's own text (a cell's box alone says nothing about wrapping). */
function lineCount(locator: import("@playwright/test").Locator) {
  return locator.evaluate((element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  });
}

/** A user with `downloads` downloads of demo posts (made here, removed after the file). */
async function userWithDownloads(name: string, downloads: number) {
  const email = `look-${name.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}@example.com`;
  const user = await db.user.create({ data: { email, fullName: name, mailVerified: true } });
  createdUserIds.push(user.id);
  const posts = await db.post.findMany({ orderBy: { id: "asc" }, take: downloads, select: { id: true, version: true } });
  await db.download.createMany({ data: posts.map((post) => ({ userId: user.id, postId: post.id, version: post.version })) });
  return user;
}

const createdUserIds: string[] = [];
test.afterAll(async () => {
  await db.user.deleteMany({ where: { id: { in: createdUserIds } } });
  await db.jobRun.deleteMany({ where: { trigger: "look-e2e" } });
  await db.auditEntry.deleteMany({ where: { targetType: "look-e2e" } });
});

test.describe("the user editor", () => {
  test("long histories fold into a disclosure the keyboard opens; short ones stay open", async ({ page }) => {
    const user = await userWithDownloads("Look Folded", 7);
    await loginAsAdmin(page);
    await page.goto(`/admin?user=${user.id}`);
    const editor = page.getByTestId("user-editor");
    await expect(editor.getByText("No pledges.")).toBeVisible();
    // Hydrated, with the page's own requests done: the keyboard then reaches React's handlers.
    await page.waitForLoadState("networkidle");
    const downloads = editor.locator("details").filter({ has: page.getByRole("heading", { name: "Downloads" }) });
    await expect(downloads).not.toHaveAttribute("open");
    await expect(downloads.locator(":scope > summary")).toContainText("7");
    await expect(downloads.getByRole("table")).toBeHidden();

    await downloads.locator(":scope > summary").focus();
    await page.keyboard.press("Enter");
    await expect(downloads.getByRole("table")).toBeVisible();
    await expect(downloads.locator("tbody tr")).toHaveCount(7);
    // A re-render (another tool revalidates the page) keeps what the admin opened.
    await page.getByRole("region", { name: "Code search" }).getByLabel("Code").fill("1");
    await page.getByRole("region", { name: "Code search" }).getByLabel("Keyword").fill("nothing-like-this");
    await page.getByRole("region", { name: "Code search" }).getByRole("button", { name: "Search" }).click();
    await expect(page.getByTestId("code-search-result")).toBeVisible();
    await expect(downloads.getByRole("table")).toBeVisible();
    await page.keyboard.press("Tab");
    await downloads.locator(":scope > summary").focus();
    await page.keyboard.press("Space");
    await expect(downloads.getByRole("table")).toBeHidden();
  });

  test.describe("without JavaScript", () => {
    test.use({ javaScriptEnabled: false });

    test("a folded history opens with a click", async ({ page }) => {
      const user = await userWithDownloads("Look Folded NoJS", 6);
      await loginAsAdmin(page);
      await page.goto(`/admin?user=${user.id}`);
      const downloads = page
        .getByTestId("user-editor")
        .locator("details")
        .filter({ has: page.getByRole("heading", { name: "Downloads" }) });
      await expect(downloads.getByRole("table")).toBeHidden();
      await downloads.locator(":scope > summary").click();
      await expect(downloads.locator("tbody tr")).toHaveCount(6);
    });
  });

  for (const viewport of [
    { width: 1366, height: 700 },
    { width: 390, height: 844 },
  ]) {
    test(`the save bar covers no other control while the form scrolls, axe clean in both themes (${viewport.width} px)`, async ({ page }) => {
      await page.setViewportSize(viewport);
      const user = await userWithDownloads(`Look Save ${viewport.width}`, 3);
      await loginAsAdmin(page);
      await page.goto(`/admin?user=${user.id}`);
      await page.waitForLoadState("networkidle");
      const bar = page.getByTestId("user-editor-save-bar");
      const picker = page.getByTestId("user-editor").getByRole("list", { name: "Posts" });
      // Middle of the long form: the picker's list fills the viewport.
      for (const position of ["start", "center", "end"] as const) {
        await picker.evaluate((list, block) => list.scrollIntoView({ block }), position);
        const overlaps = await bar.evaluate((barElement) => {
          const box = barElement.getBoundingClientRect();
          const controls = [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, summary, label")].filter(
            (control) => !barElement.contains(control) && control.offsetParent !== null && !control.hidden,
          );
          /** The part of a control not clipped away by a scrolling box around it. */
          function visibleRect(control: HTMLElement) {
            const rect = control.getBoundingClientRect();
            let { left, right, top, bottom } = rect;
            for (let parent = control.parentElement; parent; parent = parent.parentElement) {
              if (getComputedStyle(parent).overflow === "visible") continue;
              const clip = parent.getBoundingClientRect();
              left = Math.max(left, clip.left);
              right = Math.min(right, clip.right);
              top = Math.max(top, clip.top);
              bottom = Math.min(bottom, clip.bottom);
            }
            return { left, right, top, bottom };
          }
          return controls
            .filter((control) => {
              const other = visibleRect(control);
              return (
                other.right > other.left &&
                other.bottom > other.top &&
                other.left < box.right &&
                other.right > box.left &&
                other.top < box.bottom &&
                other.bottom > box.top
              );
            })
            .map((control) => control.outerHTML.slice(0, 80));
        });
        expect(overlaps, `controls under the save bar (${position})`).toEqual([]);
      }
      if (viewport.width >= 900) {
        // Wide: the bar stays on screen, below the sticky header, while the form scrolls.
        await picker.evaluate((list) => list.scrollIntoView({ block: "center" }));
        const [barBox, headerBox] = await Promise.all([bar.boundingBox(), page.locator(".site-header").boundingBox()]);
        expect(barBox!.y).toBeGreaterThanOrEqual(headerBox!.y + headerBox!.height);
        expect(barBox!.y + barBox!.height).toBeLessThanOrEqual(viewport.height);
        await expect(bar.getByRole("button", { name: "Save" })).toBeInViewport();
      }
      await picker.evaluate((list) => list.scrollIntoView({ block: "center" }));
      await expectAccessibleInBothThemes(page);
    });
  }

  test("the opened editor's heading takes focus below the sticky header, not under it", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const user = await userWithDownloads("Look Focus", 1);
    await loginAsAdmin(page);
    await page.goto("/admin");
    await page.goto(`/admin?user=${user.id}`);
    const heading = page.getByTestId("user-editor").getByRole("heading", { level: 2 });
    await heading.evaluate((element) => element.scrollIntoView({ block: "start" }));
    const [headingBox, headerBox] = await Promise.all([heading.boundingBox(), page.locator(".site-header").boundingBox()]);
    expect(headingBox!.y).toBeGreaterThanOrEqual(headerBox!.y + headerBox!.height);
  });
});

test.describe("admin tools", () => {
  test("the interval job's runs table spans the row and wraps only its summary; audit action codes never break", async ({ page }) => {
    await db.jobRun.create({
      data: {
        job: "interval",
        trigger: "look-e2e",
        status: "succeeded",
        summary: { pages: 3, members: 120, matched: 87, tierChanges: 4, tiersCleared: 1, rateLimitRetries: 0 },
        startedAt: new Date(Date.now() + 60_000),
        finishedAt: new Date(Date.now() + 70_000),
      },
    });
    await db.auditEntry.create({
      data: { action: "purchases.import", targetType: "look-e2e", targetId: "x", after: { rows: 3 }, createdAt: new Date(Date.now() + 60_000) },
    });
    await loginAsAdmin(page);
    for (const viewport of [
      { width: 1366, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto("/admin");
      const interval = page.locator(".admin-interval");
      const tools = page.locator(".admin-tools");
      const [intervalBox, toolsBox] = await Promise.all([interval.boundingBox(), tools.boundingBox()]);
      // The card takes the whole row (no half-width card with empty space beside it).
      expect(intervalBox!.width).toBeGreaterThan(toolsBox!.width - 2);
      const run = interval.locator("tbody tr").filter({ hasText: "look-e2e" });
      for (const cell of [0, 1, 2]) expect(await lineCount(run.locator("td").nth(cell)), `runs column ${cell} at ${viewport.width}`).toBe(1);
      // The summary is readable: not clipped by its box.
      const summary = run.locator("td").last();
      expect(await summary.evaluate((cell) => cell.scrollWidth <= cell.clientWidth + 1)).toBe(true);
      await expect(summary).toContainText("Rate-limit retries: 0");

      const action = page.getByTestId("audit-log").locator("tbody tr").filter({ hasText: "look-e2e" }).locator("td").nth(2);
      await expect(action).toHaveText("purchases.import");
      expect(await lineCount(action), `audit action at ${viewport.width}`).toBe(1);
    }
  });
});

// ------------------------------------------------------------ cards, pickers, brands

test("a post card leads with its cover, then title and version, then one access line; secondary actions are quieter; hover and focus show", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await acceptAdultWarning(page);
  await page.goto("/library?search=Cozy%20Cabin");
  const card = page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: "Cozy Cabin Lot" }) });
  await expect(card).toBeVisible();
  const top = async (locator: import("@playwright/test").Locator) => (await locator.boundingBox())!.y;
  const cover = card.locator(".post-image, img").first();
  const title = card.getByRole("heading", { name: "Cozy Cabin Lot" });
  const version = card.getByText("V1.0", { exact: true }).first(); // the title's badge, before the version history
  const access = card.locator(".post-locked .post-access, .post-owned-label").first();
  const subscribe = card.getByRole("link", { name: /^Subscribe/ });
  expect(await top(cover)).toBeLessThan(await top(title));
  expect(await top(title)).toBeLessThan(await top(version));
  expect(await top(version)).toBeLessThan(await top(access));
  expect(await top(access)).toBeLessThan(await top(subscribe));
  await expect(access).toContainText("Unlocks with Tier 1, Tier 2 or Tier 3");
  // "More infos" is a quiet button next to the filled Subscribe.
  const background = (locator: import("@playwright/test").Locator) => locator.evaluate((element) => getComputedStyle(element).backgroundColor);
  expect(await background(card.getByRole("link", { name: "More infos" }))).toBe("rgba(0, 0, 0, 0)");
  expect(await background(subscribe)).not.toBe("rgba(0, 0, 0, 0)");

  const shadow = () => card.evaluate((element) => getComputedStyle(element).boxShadow);
  const border = () => card.evaluate((element) => getComputedStyle(element).borderColor);
  const [restingShadow, restingBorder] = [await shadow(), await border()];
  await card.hover();
  await expect.poll(shadow).not.toBe(restingShadow);
  await page.mouse.move(0, 0);
  await subscribe.focus();
  await expect.poll(border).not.toBe(restingBorder);
});

test("the post table scrolls in its own box and the post's editor fits a phone's width", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await loginAsAdmin(page);
  await page.goto("/admin/posts");
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  const box = page.getByRole("region", { name: "Posts" });
  expect(await box.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  await page.getByTestId("post-table-row").first().getByRole("link").first().click();
  await expect(page.getByTestId("post-editor")).toBeVisible();
  expect(await overflow()).toBeLessThanOrEqual(0);
  await expect(page.getByRole("button", { name: "Save", exact: true })).toBeVisible();
});

test("the post editor's file picker shows the chosen file and keeps a real input", async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto("/admin/posts?search=Cozy%20Cabin");
  await page.getByRole("link", { name: "Cozy Cabin Lot" }).click();
  const card = page.getByTestId("post-editor");
  const zones = card.getByTestId("file-drop");
  await expect(zones).toHaveCount(2);
  await expect(zones.first()).toContainText("No file chosen");
  await card
    .getByLabel("File", { exact: true })
    .setInputFiles({ name: "update.zip", mimeType: "application/zip", buffer: Buffer.from("PK\u0005\u0006" + "\0".repeat(18)) });
  await expect(card.getByTestId("file-drop-chosen").first()).toContainText("update.zip");
});

test("the sign-in buttons wear their brands' colours", async ({ page }) => {
  await page.goto("/login?tab=login");
  const colours = async (name: string) =>
    page.getByRole("link", { name: `Continue With ${name}` }).evaluate((element) => {
      const style = getComputedStyle(element);
      return [style.backgroundColor, style.color];
    });
  expect(await colours("Patreon")).toEqual(["rgb(255, 66, 77)", "rgb(0, 0, 0)"]);
  expect(await colours("Discord")).toEqual(["rgb(88, 101, 242)", "rgb(255, 255, 255)"]);
  expect(await colours("Google")).toEqual(["rgb(255, 255, 255)", "rgb(31, 31, 31)"]);
});
