import sharp from "sharp";
import { db, expect, loadedImageWidth, loginAs, test } from "./fixtures";
import type { Page } from "@playwright/test";

// Script and console errors in the page fail a test: the failOnPageErrors fixture (fixtures.ts).
async function createAdmin() {
  return db.user.create({
    data: {
      email: `home-admin-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
      fullName: "Home Admin",
      isAdmin: true,
      canBeAdmin: true,
      mailVerified: true,
    },
  });
}

/** The home page, which shows a panel written straight to the database on the next view (docs/operations.md). */
async function openHomeWith(page: Page, title: string): Promise<void> {
  await page.goto("/");
  await expect(page.getByTestId("home-panel").filter({ hasText: title })).toHaveCount(1);
}

test("an admin creates, edits and deletes a panel with an image", async ({ page }) => {
  const admin = await createAdmin();
  await loginAs(page, admin.id);
  await page.goto("/");
  await expect(page.getByRole("link", { name: "View as User" })).toBeVisible();
  const form = page.locator("section.panel-form");
  await expect(form.getByRole("heading", { name: "Create Panel" })).toBeVisible();

  await form.getByLabel("Title").fill("E2E Gallery");
  await form.getByLabel("Description").fill("Screenshots from players");
  await form.getByLabel("Link").fill("https://example.com/gallery");
  await form.getByLabel("Index").fill("1");
  const png = await sharp({ create: { width: 64, height: 36, channels: 3, background: "#22aa66" } })
    .png()
    .toBuffer();
  await form.getByLabel("Image (png, jpg, jpeg)").setInputFiles({ name: "gallery.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("panel-image-preview")).toBeVisible();
  await form.getByRole("button", { name: "Create Panel" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel created successfully." })).toBeVisible();

  const card = page.getByTestId("home-panel").filter({ hasText: "E2E Gallery" });
  await expect(card).toBeVisible();
  const image = card.locator("img");
  await expect(image).toHaveAttribute("src", /^\/panel_images\/[a-z0-9]+\.jpg\?v=[0-9a-f]+$/);
  // The browser actually loaded the re-encoded image.
  await expect.poll(() => loadedImageWidth(image)).toBe(64);
  const firstSrc = await image.getAttribute("src");

  await card.getByRole("link", { name: "Edit E2E Gallery" }).click();
  await expect(form.getByRole("heading", { name: "Edit Panel" })).toBeVisible();
  await expect(form.getByLabel("Title")).toHaveValue("E2E Gallery");
  await expect(form.getByLabel("Index")).toHaveValue("1");
  await form.getByLabel("Title").fill("E2E Gallery Renamed");
  const jpeg = await sharp({ create: { width: 80, height: 45, channels: 3, background: "#aa2266" } })
    .jpeg()
    .toBuffer();
  await form.getByLabel("Image (png, jpg, jpeg)").setInputFiles({ name: "gallery.jpg", mimeType: "image/jpeg", buffer: jpeg });
  await form.getByRole("button", { name: "Save Changes" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel updated successfully." })).toBeVisible();
  // After saving, the form is back in empty create mode.
  await expect(form.getByRole("heading", { name: "Create Panel" })).toBeVisible();
  await expect(form.getByLabel("Title")).toHaveValue("");
  const renamed = page.getByTestId("home-panel").filter({ hasText: "E2E Gallery Renamed" });
  await expect(renamed.locator("img")).not.toHaveAttribute("src", firstSrc!);
  await expect.poll(() => loadedImageWidth(renamed.locator("img"))).toBe(80);

  await renamed.getByRole("link", { name: "Delete E2E Gallery Renamed" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete panel" });
  await expect(dialog).toContainText("Are you sure you want to delete this panel?");
  await dialog.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel deleted successfully." })).toBeVisible();
  await expect(page.getByTestId("home-panel").filter({ hasText: "E2E Gallery" })).toHaveCount(0);
  expect(await db.panel.count({ where: { title: { startsWith: "E2E Gallery" } } })).toBe(0);

  // View as User hides the admin tools.
  await page.getByRole("link", { name: "View as User" }).click();
  await expect(page.locator("section.panel-form")).toHaveCount(0);
  await expect(page.getByRole("link", { name: /^Edit / })).toHaveCount(0);
});

test("after a panel is created the form is empty again, so a second click cannot duplicate it", async ({ page }) => {
  const admin = await createAdmin();
  await loginAs(page, admin.id);
  await page.goto("/");
  const form = page.locator("section.panel-form");
  await form.getByLabel("Title").fill("E2E Once");
  await form.getByLabel("Description").fill("Only one of me");
  await form.getByLabel("Link").fill("/library");
  await form.getByLabel("Index").fill("7");
  const png = await sharp({ create: { width: 32, height: 18, channels: 3, background: "#2266aa" } })
    .png()
    .toBuffer();
  await form.getByLabel("Image (png, jpg, jpeg)").setInputFiles({ name: "once.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("panel-image-preview")).toBeVisible();
  await form.getByRole("button", { name: "Create Panel" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel created successfully." })).toBeVisible();
  await expect(page.getByTestId("home-panel").filter({ hasText: "E2E Once" })).toBeVisible();

  // Back to empty create mode, as the spec says (and as it is without JavaScript).
  await expect(form.getByRole("heading", { name: "Create Panel" })).toBeVisible();
  for (const label of ["Title", "Description", "Link", "Index"]) await expect(form.getByLabel(label)).toHaveValue("");
  await expect(form.getByLabel("Image (png, jpg, jpeg)")).toHaveValue("");
  await expect(page.getByTestId("panel-image-preview")).toHaveCount(0);
  // A second click is refused by the form's own validation instead of making a duplicate.
  await form.getByRole("button", { name: "Create Panel" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Title and Link are required." })).toBeVisible();
  expect(await db.panel.count({ where: { title: "E2E Once" } })).toBe(1);
  await db.panel.deleteMany({ where: { title: "E2E Once" } });
});

test("a visitor opens a panel link in a new tab without access to this page", async ({ page }) => {
  const panel = await db.panel.create({ data: { title: "E2E Infos Link", link: "/infos", index: 999 } });
  try {
    await openHomeWith(page, "E2E Infos Link");
    const link = page.getByTestId("home-panel").filter({ hasText: "E2E Infos Link" }).getByRole("link");
    await expect(link).toHaveAttribute("target", "_blank");
    await expect(link).toHaveAttribute("rel", /noopener/);
    const [popup] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await popup.waitForLoadState();
    expect(new URL(popup.url()).pathname).toBe("/infos");
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    await popup.close();
    // Panels keep ascending index order: the new one (index 999) is last.
    await expect(page.getByTestId("home-panel").last()).toContainText("E2E Infos Link");
  } finally {
    await db.panel.delete({ where: { id: panel.id } });
  }
});

test("a panel without an image shows a placeholder tile under its title, as readable as the others", async ({ page }) => {
  const panel = await db.panel.create({ data: { title: "E2E No Image", description: "Just a link", link: "/infos", index: 998 } });
  try {
    await openHomeWith(page, "E2E No Image");
    const card = page.getByTestId("home-panel").filter({ hasText: "E2E No Image" });
    await expect(card.locator("img")).toHaveCount(0);
    const placeholder = card.getByTestId("home-panel-placeholder");
    await expect(placeholder).toBeVisible();
    // It fills the tile (16:9) and is decorative: the link is named by the title alone.
    const [tile, drawn] = await Promise.all([card.getByRole("link").boundingBox(), placeholder.boundingBox()]);
    expect(Math.round(drawn!.width)).toBe(Math.round(tile!.width));
    expect(Math.round(drawn!.height)).toBe(Math.round(tile!.height));
    await expect(placeholder).toHaveAttribute("aria-hidden", "true");
    await expect(card.getByRole("link")).toHaveAccessibleName(/^E2E No Image/);
    // The tile is drawn, not the plain surface colour of an empty box.
    expect(await placeholder.evaluate((element) => getComputedStyle(element).backgroundImage)).toContain("gradient");
  } finally {
    await db.panel.delete({ where: { id: panel.id } });
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the panel form shows the spec's message and creates a panel", async ({ page }) => {
    const admin = await createAdmin();
    await loginAs(page, admin.id);
    await page.goto("/");
    const form = page.locator("section.panel-form");
    await form.getByLabel("Title").fill("  ");
    await form.getByRole("button", { name: "Create Panel" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Title and Link are required." })).toBeVisible();

    await form.getByLabel("Title").fill("E2E No JS");
    await form.getByLabel("Link").fill("/library");
    await form.getByRole("button", { name: "Create Panel" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Panel created successfully." })).toBeVisible();
    await expect(page.getByTestId("home-panel").filter({ hasText: "E2E No JS" })).toBeVisible();
    await db.panel.deleteMany({ where: { title: "E2E No JS" } });
  });
});
