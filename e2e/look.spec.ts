// The look-and-feel parts that behave: the file picker (click, drop, and without JavaScript),
// the toaster (no repeats, at most three, gone after 5 s, not doubling an inline error) and the
// sign-in buttons (each label on one line on a desktop screen).
import sharp from "sharp";
import type { Page } from "@playwright/test";
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
  return sharp({ create: { width: 32, height: 18, channels: 3, background: "#3366cc" } }).png().toBuffer();
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
    const dataTransfer = await page.evaluateHandle((bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], "dropped.png", { type: "image/png" }));
      return transfer;
    }, [...png]);
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
    await page.goto("/library?search=Look%20Toast");
    await page.waitForLoadState("networkidle");
    // Time stands still from here: only runFor below lets the 5 s pass.
    await page.clock.pauseAt(Date.now() + 60_000);
    const card = page.getByTestId("admin-post-card").filter({ has: page.getByRole("heading", { name: "Look Toast Post" }) });
    const toasts = page.getByTestId("toast");

    await card.getByRole("button", { name: "Save", exact: true }).click();
    await expect(toasts.filter({ hasText: "Post updated." })).toHaveCount(1);
    await card.getByRole("button", { name: "Save", exact: true }).click();
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
