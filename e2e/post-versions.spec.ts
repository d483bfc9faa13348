// Post versions in the browser: an admin uploads a first ZIP and then a new version
// with Markdown notes from the post card; the library card's "Version history" shows the notes
// and what changed inside the archive.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeZip } from "../tests/zip-files";
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

// Made when a worker runs this file (not when the runner only lists its tests), removed after.
let folder = "";
test.beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), "clib-e2e-versions-"));
});
const postId = `e2ever${Date.now().toString(36)}`;

const headingsPostId = `${postId}h`;
const filesPostId = `${postId}f`;

test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: { in: [postId, headingsPostId, `${filesPostId}g`, `${filesPostId}j`, `${filesPostId}n`] } } });
  rmSync(folder, { recursive: true, force: true });
});

function zip(name: string, files: { name: string; text: string }[]): Buffer {
  const file = path.join(folder, name);
  writeZip(file, files);
  return readFileSync(file);
}

test("an admin uploads a new version with notes; the card's version history shows them and the files that changed", async ({ page }) => {
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
  await loginAs(page, admin.id);
  await acceptAdultWarning(page);
  await db.post.create({
    data: {
      id: postId,
      title: "E2E Versioned Mod",
      paidContent: true,
      version: "V1.0",
      orderDate: new Date("2000-01-01T00:00:00Z"),
      tiers: { create: [{ tierId: "8825009", kind: "CURRENT" }] },
    },
  });
  const first = zip("v1.zip", [
    { name: "mod/readme.txt", text: "one" },
    { name: "mod/hat.package", text: "hat v1" },
    { name: "mod/old-shoes.package", text: "shoes" },
  ]);
  const second = zip("v2.zip", [
    { name: "mod/readme.txt", text: "one" },
    { name: "mod/hat.package", text: "hat v2, fixed" },
    { name: "mod/scarf.package", text: "scarf" },
  ]);

  // The post's editor, reached from its library card.
  await page.goto("/library?search=E2E%20Versioned");
  await page.getByRole("link", { name: "Edit E2E Versioned Mod" }).click();
  await expect(page).toHaveURL(`/admin/posts/${postId}`);
  const card = page.getByTestId("post-editor");
  await card.getByLabel("New version label").fill("V1.0");
  await card.getByLabel("File", { exact: true }).setInputFiles({ name: "versioned.zip", mimeType: "application/zip", buffer: first });
  await card.getByRole("button", { name: "Upload file" }).click();
  await expect.poll(() => db.postVersion.count({ where: { postId } })).toBe(1);
  await expect(card.getByText("Version history (1)")).toBeVisible();

  await card.getByLabel("New version label").fill("V2.0");
  await card.getByLabel("Version notes (Markdown)").fill("**Fixed** the hat's clipping.\n\n- New scarf\n- Shoes removed <b>for now</b>");
  await card.getByLabel("File", { exact: true }).setInputFiles({ name: "versioned.zip", mimeType: "application/zip", buffer: second });
  await card.getByRole("button", { name: "Upload file" }).click();
  await expect.poll(() => db.postVersion.count({ where: { postId } })).toBe(2);
  expect((await db.post.findUniqueOrThrow({ where: { id: postId } })).version).toBe("V2.0");
  // The editor follows the upload; the details have no version field, so a Save keeps V2.0.
  await expect(card.getByText(/^Post ID .* · V2\.0 · /)).toBeVisible();
  await expect(card.getByLabel("Version", { exact: true })).toHaveCount(0);
  // The admin's history lists both, newest first, with the SHA-256 of each.
  await card.getByText("Version history (2)").click();
  const adminItems = card.getByTestId("version-item");
  await expect(adminItems).toHaveCount(2);
  await expect(adminItems.first()).toContainText("V2.0");
  // The editor shows the SHA-256 shortened (first and last 8), the whole one in its title.
  const sha256 = (await db.postVersion.findFirstOrThrow({ where: { postId, label: "V2.0" } })).sha256!;
  await expect(adminItems.first()).toContainText(`${sha256.slice(0, 8)}…${sha256.slice(-8)}`);
  await expect(adminItems.first().locator(`[title="${sha256}"]`)).toHaveCount(1);

  // As users see it: the disclosure on the library card.
  await page.goto("/library?view=user&search=E2E%20Versioned");
  const userCard = page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: "E2E Versioned Mod" }) });
  const history = userCard.getByTestId("version-history");
  await expect(history.getByText("Fixed")).toBeHidden();
  await history.getByText("Version history (2)").click();
  const newest = history.getByTestId("version-item").first();
  await expect(newest.locator("strong", { hasText: "Fixed" })).toBeVisible();
  await expect(newest.getByText("New scarf")).toBeVisible();
  // Raw HTML in the notes is shown as text, not markup.
  await expect(newest.getByText("Shoes removed <b>for now</b>")).toBeVisible();
  const changelog = newest.getByTestId("version-changelog");
  await expect(changelog.getByText("Added (1)")).toBeVisible();
  await expect(changelog.getByText("mod/scarf.package")).toBeVisible();
  await expect(changelog.getByText("Removed (1)")).toBeVisible();
  await expect(changelog.getByText("mod/old-shoes.package")).toBeVisible();
  await expect(changelog.getByText("Changed (1)")).toBeVisible();
  await expect(changelog.getByText("mod/hat.package")).toBeVisible();
  await expect(changelog.getByText("mod/readme.txt")).toHaveCount(0);
  // The older version stays downloadable from the history.
  await expect(history.getByRole("button", { name: /Download V1\.0/ })).toBeVisible();
});

test("headings in version notes stay smaller than the post's title", async ({ page }) => {
  await acceptAdultWarning(page);
  await db.post.create({
    data: { id: headingsPostId, title: "E2E Notes Headings", paidContent: false, version: "V2.0", orderDate: new Date("2000-01-01T00:00:00Z") },
  });
  await db.postVersion.create({
    data: {
      postId: headingsPostId,
      label: "V2.0",
      notes: "# Big news\n\nA new hat.\n\n## Fixes\n\n- Clipping",
      storageKey: `posts/${headingsPostId}/v2.zip`,
      fileName: "v2.zip",
      size: BigInt(10),
    },
  });
  await page.goto("/library?search=E2E%20Notes%20Headings");
  const card = page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: "E2E Notes Headings" }) });
  await card.getByTestId("version-history").getByText("Version history (1)").click();
  const notes = card.getByTestId("version-item").first();
  await expect(notes.getByRole("heading", { name: "Big news" })).toBeVisible();
  const size = (locator: import("@playwright/test").Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
  const title = await size(card.getByRole("heading", { name: "E2E Notes Headings" }));
  expect(await size(notes.getByRole("heading", { name: "Big news" }))).toBeLessThan(title);
  expect(await size(notes.getByRole("heading", { name: "Fixes" }))).toBeLessThan(title);
});

/** A post whose current version has two variants and a Tier 3 add-on beside its main file (rows only: nothing here downloads). */
async function postWithAddedFiles(id: string): Promise<void> {
  await db.post.create({
    data: {
      id,
      title: `E2E Files ${id}`,
      paidContent: true,
      version: "V1.0",
      fileName: "main.package",
      fileSize: 100n,
      driveFileId: `posts/${id}/main.package`,
      orderDate: new Date("2000-01-01T00:00:00Z"),
      tiers: { create: [{ tierId: "8825009", kind: "CURRENT" }] },
    },
  });
  const version = await db.postVersion.create({
    data: { postId: id, label: "V1.0", storageKey: `posts/${id}/main.package`, fileName: "main.package", size: 100n },
  });
  await db.post.update({ where: { id }, data: { currentVersionId: version.id } });
  const file = (role: "VARIANT" | "OPTIONAL", label: string, position: number, gateTierIds: string[] = []) => ({
    versionId: version.id,
    role,
    label,
    position,
    storageKey: `posts/${id}/${position}.package`,
    fileName: `${label.toLowerCase().replace(/\W+/g, "-")}.package`,
    size: 100n,
    sha256: "a".repeat(64),
    contentHash: "a".repeat(64),
    gateTierIds,
  });
  await db.versionFile.createMany({ data: [file("VARIANT", "Maxis Match", 0), file("VARIANT", "Alpha", 1), file("OPTIONAL", "Accessories", 2, ["21786318"])] });
}

test("at 390 px a guest's card lists the current version's added files, each with its access line", async ({ page }) => {
  const id = `${filesPostId}g`;
  await postWithAddedFiles(id);
  await acceptAdultWarning(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/library?search=${encodeURIComponent(`E2E Files ${id}`)}`);
  const lines = page.getByTestId("post-card").getByTestId("card-files").getByRole("listitem");
  await expect(lines).toHaveText([/^Variant: Maxis Match · unlocked by /, /^Variant: Alpha · unlocked by /, /^Optional add-on: Accessories · unlocked by /]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // The demo post with variants shows its list too; a post with a main file only shows none.
  await page.goto("/library?search=Autumn%20Hair%20Collection");
  await expect(page.getByTestId("card-files")).toContainText("Optional add-on: Bonus hair accessories · unlocked by");
  await page.goto("/library?search=Starter%20Furniture%20Pack");
  await expect(page.getByTestId("post-card")).toHaveCount(1);
  await expect(page.getByTestId("card-files")).toHaveCount(0);
});

for (const javaScriptEnabled of [true, false]) {
  test.describe(`removing an added file ${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("the editor asks first, then the file is gone from the editor and the card", async ({ page }) => {
      const id = javaScriptEnabled ? `${filesPostId}j` : `${filesPostId}n`;
      await postWithAddedFiles(id);
      const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
      await loginAs(page, admin.id);
      await page.goto(`/admin/posts/${id}`);
      const added = page.getByTestId("added-files");
      await expect(added.getByRole("listitem")).toHaveCount(3);
      await added.getByRole("link", { name: "Remove Alpha" }).click();
      const dialog = page.getByTestId("remove-file-dialog");
      await expect(dialog).toContainText("Variant: Alpha");
      await dialog.getByRole("button", { name: "Remove" }).click();
      await expect(page.getByText("File removed from the version.")).toBeVisible();
      await expect(page).toHaveURL(`/admin/posts/${id}`);
      await expect(added.getByRole("listitem")).toHaveCount(2);
      await expect(added).not.toContainText("Alpha");
      expect((await db.versionFile.findFirstOrThrow({ where: { label: "Alpha", version: { postId: id } } })).removedAt).not.toBeNull();
      // The card as users see it (the admin's user view).
      await page.goto(`/library?view=user&search=${encodeURIComponent(`E2E Files ${id}`)}`);
      await expect(page.getByTestId("card-files").getByRole("listitem")).toHaveText([/^Variant: Maxis Match · /, /^Optional add-on: Accessories · /]);
    });
  });
}
