import type { BrowserContext, Download, Page } from "@playwright/test";
import { expectAccessibleInBothThemes } from "./axe";
import { acceptAdultWarning, db, expect, loadedImageWidth, loginAs, test } from "./fixtures";

/**
 * A download that starts in a new tab: the tab opens, and Chromium hands the download to the
 * opening page as the tab closes.
 */
async function downloadInNewTab(page: Page, context: BrowserContext, start: () => Promise<void>): Promise<Download> {
  const tab = context.waitForEvent("page");
  const download = page.waitForEvent("download");
  await start();
  await tab;
  return download;
}

/** Posts made by these tests (removed afterwards, so other suites see the demo library intact). */
const createdPostIds: string[] = [];

async function createE2ePost(title: string) {
  const id = `e2e${Date.now().toString(36)}${createdPostIds.length}`;
  createdPostIds.push(id);
  return db.post.create({
    data: {
      id,
      title,
      paidContent: true,
      version: "V1.0",
      orderDate: new Date("2000-01-01T00:00:00Z"),
      tiers: { create: [{ tierId: "8825009", kind: "CURRENT" }] },
    },
  });
}

/**
 * The library page's action: its fetchers post to its single fetch address (decision 020), the
 * post file's upload (XMLHttpRequest, for its progress) to the page's own address.
 */
const LIBRARY_ACTIONS = ["/library.data", "/library"];

/**
 * Records the pathnames of the page's POST requests: with JavaScript every change posts to the
 * library's own action (the one the plain forms use), never to an /api adapter.
 */
function recordPosts(page: Page): string[] {
  const posted: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posted.push(new URL(request.url()).pathname);
  });
  return posted;
}

test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: { in: createdPostIds } } });
  const users = { email: { in: ["supporter@example.com", "fan@example.com"] } };
  await db.user.updateMany({ where: users, data: { tosAccepted: false } });
  await db.download.deleteMany({ where: { user: users } });
});

function card(page: import("@playwright/test").Page, title: string) {
  return page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

function adminCard(page: import("@playwright/test").Page, title: string) {
  return page.getByTestId("admin-post-card").filter({ has: page.getByRole("heading", { name: title }) });
}

test("the 18+ warning blurs the library until accepted, and is remembered", async ({ page }) => {
  await page.goto("/library");
  const modal = page.getByTestId("nsfw-modal");
  await expect(modal).toBeVisible();
  await expect(page.getByTestId("library-content")).toHaveAttribute("inert", "");
  await expect(page.getByTestId("library-content")).toHaveClass(/library-blurred/);
  await modal.getByRole("button", { name: "I am 18 or older" }).click();
  await expect(modal).toBeHidden();
  await expect(page.getByTestId("library-content")).not.toHaveAttribute("inert", "");
  expect(await page.evaluate(() => [localStorage.getItem("nsfwAccepted"), localStorage.getItem("isNsfwAccepted")])).toEqual(["true", "true"]);
  await page.reload();
  await expect(page.getByTestId("nsfw-modal")).toBeHidden();
  await expect(card(page, "Starter Furniture Pack")).toBeVisible();
});

test("the 18+ warning is accepted in place while its dialog's code is still on its way", async ({ page }) => {
  // The dialog's script never arrives: the page has only the server's copy of the dialog.
  await page.route(/\/assets\/adult-warning-[\w-]+\.js$/, () => {});
  const asked = page.waitForRequest(/\/assets\/adult-warning-/);
  await page.goto("/library", { waitUntil: "domcontentloaded" });
  // Hydrated: the page asked for the dialog's code after its first view.
  await asked;
  const posted = recordPosts(page);
  const answered = page.waitForResponse((response) => response.request().method() === "POST");
  const modal = page.getByTestId("nsfw-modal");
  await modal.getByRole("button", { name: "I am 18 or older" }).click();
  await expect(modal).toBeHidden();
  await expect(page.getByTestId("library-content")).not.toHaveAttribute("inert", "");
  expect(await page.evaluate(() => [localStorage.getItem("nsfwAccepted"), localStorage.getItem("isNsfwAccepted")])).toEqual(["true", "true"]);
  // Through the library's action in place (its fetcher), not the page's own form post.
  expect((await answered).ok()).toBe(true);
  expect(posted).toEqual(["/library.data"]);
});

test("search and filter live in the URL and survive a reload; posts per line changes the grid", async ({ page }) => {
  await acceptAdultWarning(page);
  await page.goto("/library");
  // The demo's 27 posts but the one scheduled ahead (docs/product.md#releases).
  await expect(page.getByTestId("post-card")).toHaveCount(26);
  // Guests get no outdated/never filters.
  await page.getByText("Filters").click();
  await expect(page.getByRole("radio", { name: "Never downloaded" })).toHaveCount(0);

  await page.getByLabel("Search by title").fill("garden");
  await page.waitForURL(/search=garden/);
  await expect(page.getByTestId("post-card")).toHaveCount(2);

  await page.getByRole("radio", { name: "Locked", exact: true }).check();
  await page.waitForURL(/filter=locked/);
  await expect(page.getByTestId("post-card")).toHaveCount(1);
  await expect(card(page, "Zen Garden Stones")).toBeVisible();
  await expect(card(page, "Zen Garden Stones").getByRole("img", { name: "Locked" })).toBeVisible();
  await expect(card(page, "Zen Garden Stones").getByRole("link", { name: "Ko-fi Shop" })).toBeVisible();

  await page.reload();
  await expect(page.getByLabel("Search by title")).toHaveValue("garden");
  await expect(page.getByRole("radio", { name: "Locked", exact: true })).toBeChecked();
  await expect(page.getByTestId("post-card")).toHaveCount(1);

  await page.goto("/library?filter=bogus");
  await expect(page.getByTestId("post-card")).toHaveCount(26);

  const grid = page.getByTestId("library-grid");
  const columns = () => grid.evaluate((element) => getComputedStyle(element).gridTemplateColumns.split(" ").length);
  expect(await columns()).toBe(2);
  await page.getByLabel("Posts per line").selectOption("4");
  await page.waitForURL(/perLine=4/);
  await expect(grid).toHaveAttribute("data-per-line", "4");
  expect(await columns()).toBe(4);
});

test("Posts per line shows only where the choice changes the grid", async ({ page }) => {
  await acceptAdultWarning(page);
  const grid = page.getByTestId("library-grid");
  const columns = () => grid.evaluate((element) => getComputedStyle(element).gridTemplateColumns.split(" ").length);
  // A phone has room for one post per line and a small tablet for two, whatever is chosen.
  for (const [width, expected] of [
    [375, 1],
    [800, 2],
  ] as const) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/library?perLine=4");
    await expect(grid).toBeVisible();
    expect(await columns()).toBe(expected);
    await expect(page.getByLabel("Posts per line")).toBeHidden();
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/library?perLine=4");
  await expect(page.getByLabel("Posts per line")).toBeVisible();
  expect(await columns()).toBe(4);
});

test("free posts say they are free; only owned paid posts say you own them", async ({ page }) => {
  await acceptAdultWarning(page);
  await page.goto("/library");
  const free = card(page, "Starter Furniture Pack");
  await expect(free.getByText("Free download", { exact: true })).toBeVisible();
  await expect(page.getByText("You own this item")).toHaveCount(0);

  const fan = await db.user.findUniqueOrThrow({ where: { email: "fan@example.com" } });
  await loginAs(page, fan.id);
  await page.goto("/library?search=Starter");
  await expect(card(page, "Starter Furniture Pack").getByText("Free download", { exact: true })).toBeVisible();
  await expect(card(page, "Starter Furniture Pack").getByText("You own this item")).toHaveCount(0);

  const supporter = await db.user.findUniqueOrThrow({ where: { email: "supporter@example.com" } });
  await loginAs(page, supporter.id);
  await page.goto("/library");
  await expect(card(page, "Cozy Cabin Lot").getByText("You own this item")).toBeVisible();
  await expect(card(page, "Starter Furniture Pack").getByText("Free download", { exact: true })).toBeVisible();
});

test("a row's Download in the compact list asks for the terms in place while the rows' code is still on its way", async ({ page, context }) => {
  await page.goto("/infos");
  // Passed the 18+ warning before: its cookie (`true`, as Remix encodes a cookie's value).
  await context.addCookies([{ name: "nsfwAccepted", value: encodeURIComponent(btoa(JSON.stringify(true))), url: page.url() }]);
  // The rows' script never arrives: the page has only the server's copy of the list.
  await page.route(/\/assets\/post-row-[\w-]+\.js$/, () => {});
  const asked = page.waitForRequest(/\/assets\/post-row-/);
  await page.goto("/library?layout=list", { waitUntil: "domcontentloaded" });
  await asked;
  const posted = recordPosts(page);
  const row = page.getByTestId("post-row").filter({ has: page.getByRole("heading", { name: "Starter Furniture Pack", exact: true }) });
  await row.getByRole("button", { name: /^Download/ }).click();
  await expect(page.getByTestId("terms-modal")).toBeVisible();
  // The popup of the page with JavaScript: no post yet, and the address is the list's own.
  expect(posted).toEqual([]);
  expect(new URL(page.url()).search).toBe("?layout=list");
});

test("a guest accepts the terms and downloads a free post", async ({ page, context }) => {
  await acceptAdultWarning(page);
  await page.goto("/library");
  const free = card(page, "Starter Furniture Pack");
  await expect(free.getByText("Free download", { exact: true })).toBeVisible();
  await free.getByRole("button", { name: /^Download \(\d+\.\d\d KB\)$/ }).click();
  const terms = page.getByTestId("terms-modal");
  await expect(terms).toBeVisible();
  const download = await downloadInNewTab(page, context, () => terms.getByRole("button", { name: "I Accept" }).click());
  await expect(page.getByText("If you don't want this popup every time, sign up!")).toBeVisible();
  await expect(page.getByText("Download will be starting soon...")).toBeVisible();
  expect(download.suggestedFilename()).toBe("starter-furniture-pack-v1.0.package");
  await expect(page.getByText("Download initiated.")).toBeVisible({ timeout: 6000 });

  // Accepted for this visit: the next download goes straight on.
  const second = await downloadInNewTab(page, context, () =>
    card(page, "Retro Diner Counter")
      .getByRole("button", { name: /^Download/ })
      .click(),
  );
  await expect(page.getByTestId("terms-modal")).toBeHidden();
  expect(second.suggestedFilename()).toBe("retro-diner-counter-v1.0.package");
});

test("a supporter accepts the terms once and downloads a paid post; it is recorded", async ({ page }) => {
  const supporter = await db.user.findUniqueOrThrow({ where: { email: "supporter@example.com" } });
  await db.user.update({ where: { id: supporter.id }, data: { tosAccepted: false } });
  await db.download.deleteMany({ where: { userId: supporter.id } });
  await loginAs(page, supporter.id);
  await acceptAdultWarning(page);
  const posted = recordPosts(page);
  const apiCalls: string[] = [];
  page.on("request", (request) => {
    if (/^\/api\/(library|download\/freedownload)\//.test(new URL(request.url()).pathname)) apiCalls.push(request.url());
  });
  await page.goto("/library?filter=never");
  const paid = card(page, "Cozy Cabin Lot");
  await expect(paid.getByText("Never downloaded")).toBeVisible();
  await expect(card(page, "Victorian Greenhouse")).toHaveCount(0);
  await paid.getByRole("button", { name: /^Download/ }).click();
  await expect(page.getByTestId("terms-modal")).toBeVisible();
  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "I Accept" }).click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toBe("cozy-cabin-lot-v1.0.package");
  expect(await download.failure()).toBeNull();
  // One toast per download: the one that said it is coming now says it started.
  const downloadToasts = page
    .getByTestId("toast")
    .locator(".toast-message")
    .filter({ hasText: /^Download (will be starting soon\.\.\.|initiated\.)$/ });
  await expect(downloadToasts).toHaveText(["Download initiated."], { timeout: 6000 });
  // The card updates in place: downloaded now, not "Never downloaded" until a reload.
  await expect(paid.getByText("Never downloaded")).toHaveCount(0);
  await expect.poll(async () => (await db.user.findUniqueOrThrow({ where: { id: supporter.id } })).tosAccepted).toBe(true);
  await expect.poll(() => db.download.count({ where: { userId: supporter.id } })).toBe(1);
  // The terms were accepted by the library's action with the download request, not by /api.
  expect(posted.length).toBeGreaterThan(0);
  expect(posted.every((path) => LIBRARY_ACTIONS.includes(path))).toBe(true);
  expect(apiCalls).toEqual([]);

  // Recorded: the post leaves the "never" filter; the terms are not asked again.
  await page.reload();
  await expect(card(page, "Cozy Cabin Lot")).toHaveCount(0);
  await page.goto("/library?search=Minimalist");
  const second = page.waitForEvent("download");
  await card(page, "Minimalist Kitchen")
    .getByRole("button", { name: /^Download/ })
    .click();
  await expect(page.getByTestId("terms-modal")).toBeHidden();
  await second;
});

test("opening a card's version history grows that card only, not the one beside it", async ({ page }) => {
  await acceptAdultWarning(page);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto("/library?perLine=2");
  const neon = card(page, "Neon Streetwear Set");
  // Two per line: the card beside it is the other one of its pair.
  const index = await neon.evaluate((element) => [...element.parentElement!.children].indexOf(element));
  const neighbour = page.getByTestId("post-card").nth(index ^ 1);
  // Measured once both covers have loaded (lazy images below the fold change heights as they come).
  await neon.scrollIntoViewIfNeeded();
  for (const each of [neon, neighbour])
    await expect
      .poll(() =>
        each
          .locator("img")
          .first()
          .evaluate((image: HTMLImageElement) => image.complete),
      )
      .toBe(true);
  const height = (locator: typeof neon) => locator.evaluate((element) => Math.round(element.getBoundingClientRect().height));
  const [neonBefore, neighbourBefore] = [await height(neon), await height(neighbour)];
  await neon.getByText(/^Version history/).click();
  await expect(neon.getByTestId("version-list")).toBeVisible();
  expect(await height(neon)).toBeGreaterThan(neonBefore);
  // The row neighbour keeps its height: it does not stretch into an empty box.
  expect(await height(neighbour)).toBe(neighbourBefore);
});

test("a compact list view is kept in the URL; an owned post with a newer version leads with Update available", async ({ page }) => {
  const supporter = await db.user.findUniqueOrThrow({ where: { email: "supporter@example.com" } });
  const kitchen = await db.post.findFirstOrThrow({ where: { title: "Minimalist Kitchen" } });
  await db.user.update({ where: { id: supporter.id }, data: { tosAccepted: true } });
  await db.download.deleteMany({ where: { userId: supporter.id, postId: kitchen.id } });
  await db.download.create({ data: { userId: supporter.id, postId: kitchen.id, version: "V0.9" } });
  await loginAs(page, supporter.id);
  await acceptAdultWarning(page);
  await page.goto("/library?search=Minimalist");
  const badges = card(page, "Minimalist Kitchen").getByTestId("post-badges").locator(".badge");
  await expect(badges.first()).toHaveText("Update available");
  await expect(card(page, "Minimalist Kitchen").getByText("Your version: V0.9")).toBeVisible();

  // The list: a row per post with its thumbnail, title, status and one button.
  await page.getByRole("radio", { name: "List" }).check();
  await page.waitForURL(/layout=list/);
  const row = page.getByTestId("post-row").filter({ has: page.getByRole("heading", { name: "Minimalist Kitchen" }) });
  await expect(row).toHaveCount(1);
  await expect(page.getByTestId("post-card")).toHaveCount(0);
  await expect(row.getByText("Update available")).toBeVisible();
  await expect(row.getByText("You own this item")).toBeVisible();
  await expect(row.getByRole("button")).toHaveCount(1);
  await page.reload();
  await expect(page.getByRole("radio", { name: "List" })).toBeChecked();
  await expect(page.getByTestId("post-row")).toHaveCount(1);

  // A download from the row updates it in place.
  const download = page.waitForEvent("download");
  await row.getByRole("button", { name: /^Download/ }).click();
  await download;
  await expect(row.getByText("Update available")).toHaveCount(0);

  // Locked posts offer their main way in, beside the title's link to the post's page.
  await page.goto("/library?layout=list&filter=locked");
  const locked = page.getByTestId("post-row").first();
  await expect(locked.getByRole("img", { name: "Locked" })).toBeVisible();
  const title = (await locked.getByRole("heading").textContent()) ?? "";
  await expect(locked.getByRole("link")).toHaveCount(2);
  await expect(locked.getByRole("link", { name: title, exact: true })).toHaveAttribute("href", /^\/library\/[^/]+$/);

  await page.getByRole("radio", { name: "Grid" }).check();
  await page.waitForURL(/layout=grid/);
  await expect(page.getByTestId("library-grid")).toBeVisible();
});

test("an admin edits a post in its editor (one Save), toggles it on the card and reorders posts", async ({ page }) => {
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
  const created = await createE2ePost("E2E Editable Post");
  await loginAs(page, admin.id);
  await acceptAdultWarning(page);
  await page.goto("/library");
  await expect(page.getByRole("link", { name: "View as User" })).toBeVisible();
  // Created with the oldest order date: last in the library.
  await expect(page.getByTestId("admin-post-card").last().getByRole("heading")).toContainText("E2E Editable Post");
  const editable = adminCard(page, "E2E Editable Post");

  // Each toggle's round trip ends with its toast; the next click comes after it, as an admin's would.
  await editable.getByRole("button", { name: "Disable" }).click();
  await expect(editable.getByRole("button", { name: "Enable" })).toBeVisible();
  await expect(page.getByText("Post disabled.")).toBeVisible();
  expect((await db.post.findUniqueOrThrow({ where: { id: created.id } })).enabled).toBe(false);
  await editable.getByRole("button", { name: "Enable" }).click();
  await expect(page.getByText("Post enabled.")).toBeVisible();
  expect((await db.post.findUniqueOrThrow({ where: { id: created.id } })).enabled).toBe(true);

  await editable.getByRole("link", { name: "Edit E2E Editable Post" }).click();
  await expect(page).toHaveURL(`/admin/posts/${created.id}`);
  const editor = page.getByTestId("post-editor");
  const versionBefore = (await db.post.findUniqueOrThrow({ where: { id: created.id } })).version;
  await editor.getByLabel("Ko-fi ID").fill("NEWKOFI1");
  await editor.getByRole("group", { name: "First tiers" }).getByLabel("Tier 1").check();
  await editor.getByLabel("Is Ko-fi Only").check();
  await editor.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Post updated.")).toBeVisible();
  await expect(page).toHaveURL(`/admin/posts/${created.id}`);
  const saved = await db.post.findUniqueOrThrow({ where: { id: created.id }, include: { tiers: true } });
  expect(saved).toMatchObject({ kofiId: "NEWKOFI1", version: versionBefore, isKofiOnly: true });
  expect(saved.tiers.filter((tier) => tier.kind === "FIRST").map((tier) => tier.tierId)).toEqual(["8824971"]);

  await editor.getByLabel("Index (0 = first)").fill("-3");
  await editor.getByRole("button", { name: "Set Index" }).click();
  await expect(page.getByText("Please enter a valid index.")).toBeVisible();
  await editor.getByLabel("Index (0 = first)").fill("0");
  await editor.getByRole("button", { name: "Set Index" }).click();
  await expect(page.getByText("Post order updated.")).toBeVisible();
  const first = await db.post.findFirstOrThrow({ orderBy: { orderDate: "desc" } });
  expect(first.id).toBe(created.id);
  await page.goto("/library");
  await expect(page.getByTestId("admin-post-card").first().getByRole("heading")).toContainText("E2E Editable Post");

  await page.getByRole("link", { name: "View as User" }).click();
  await expect(page.getByTestId("post-card").first().getByRole("heading")).toHaveText("E2E Editable Post");
  await expect(page.getByRole("link", { name: "View as Admin" })).toBeVisible();
});

test("an admin uploads a front image and a post file in the post's editor", async ({ page }) => {
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
  await loginAs(page, admin.id);
  await acceptAdultWarning(page);
  const created = await createE2ePost("E2E Upload Post");
  const posted = recordPosts(page);
  await page.goto(`/admin/posts/${created.id}`);
  const cat = page.getByTestId("post-editor");
  await expect(cat.getByText("No preview picture found")).toBeVisible();

  const sharp = (await import("sharp")).default;
  const png = await sharp({ create: { width: 640, height: 360, channels: 3, background: "#cc5500" } })
    .png()
    .toBuffer();
  await cat.getByLabel("Image (png, jpg, jpeg)").setInputFiles({ name: "cat.png", mimeType: "image/png", buffer: png });
  await cat.getByRole("button", { name: "Upload image" }).click();
  await expect(page.getByText("Image uploaded.")).toBeVisible();
  await expect(cat.locator("img.post-image")).toHaveAttribute(
    "src",
    `/media/posts/${created.id}.jpg?v=${(await db.post.findUniqueOrThrow({ where: { id: created.id } })).updatedAt.getTime().toString(36)}`,
  );

  // The re-encoded image is really served (decoded by the browser).
  await expect.poll(() => loadedImageWidth(cat.locator("img.post-image"))).toBe(640);

  const bytes = Buffer.alloc(3 * 1024 * 1024, 0x42);
  await cat.getByLabel("File", { exact: true }).setInputFiles({ name: "pixel cat v2.zip", mimeType: "application/zip", buffer: bytes });
  await cat.getByRole("button", { name: "Upload file" }).click();
  await expect(page.getByText("File uploaded.")).toBeVisible();
  const post = await db.post.findUniqueOrThrow({ where: { id: created.id } });
  expect(post).toMatchObject({ fileName: "pixel-cat-v2.zip", fileSize: BigInt(bytes.length) });
  // The editor's file line (the version history, closed, repeats the size).
  await expect(cat.getByText("3.00 MB").first()).toBeVisible();
  // The image went to the editor's action, as without JavaScript; the post file, with
  // JavaScript, as a resumable upload (docs/api.md#resumable-uploads): started, sent, completed.
  const editorActions = [`/admin/posts/${created.id}`, `/admin/posts/${created.id}.data`];
  expect(posted.filter((path) => editorActions.includes(path)).length).toBeGreaterThanOrEqual(1);
  const uploads = posted.filter((path) => !editorActions.includes(path));
  expect(uploads[0]).toBe("/api/uploads");
  expect(uploads.at(-1)).toMatch(/^\/api\/uploads\/[^/]+\/complete$/);
});

test("a download that became locked after the page loaded shows the server's error instead of failing silently", async ({ page }) => {
  const fan = await db.user.findUniqueOrThrow({ where: { email: "fan@example.com" } });
  const post = await db.post.findFirstOrThrow({ where: { title: "Royal Ballroom" } });
  await db.user.update({ where: { id: fan.id }, data: { tosAccepted: true } });
  // The admin suite may already have granted this post to the demo fan.
  await db.unlockedContent.upsert({
    where: { userId_postId: { userId: fan.id, postId: post.id } },
    create: { userId: fan.id, postId: post.id, source: "ADMIN" },
    update: {},
  });
  // A controlled clock: the check below moves past the announcement delay instead of sleeping.
  await page.clock.install();
  await loginAs(page, fan.id);
  await acceptAdultWarning(page);
  await page.goto("/library?search=Royal");
  await expect(card(page, "Royal Ballroom").getByText("You own this item")).toBeVisible();
  await db.unlockedContent.delete({ where: { userId_postId: { userId: fan.id, postId: post.id } } });
  await card(page, "Royal Ballroom")
    .getByRole("button", { name: /^Download/ })
    .click();
  await expect(page.getByText("You do not have access to this post.")).toBeVisible();
  // Past the 3 s after which a started download would announce itself.
  await page.clock.runFor(3500);
  await expect(page.getByText("Download initiated.")).toHaveCount(0);
});

test("a card's title opens the post's own page: the card unfolded, a download that comes back to it, and no violation", async ({ page }) => {
  const supporter = await db.user.findUniqueOrThrow({ where: { email: "supporter@example.com" } });
  await db.user.update({ where: { id: supporter.id }, data: { tosAccepted: true } });
  await loginAs(page, supporter.id);
  await acceptAdultWarning(page);
  await page.goto("/library?search=Cozy%20Cabin");
  // The page is running (its 18+ warning passed from this browser's storage) before the click,
  // so the title opens the post as a link does in a running page.
  await expect(page.getByTestId("library-content")).not.toHaveAttribute("inert");
  await card(page, "Cozy Cabin Lot").getByRole("link", { name: "Cozy Cabin Lot" }).click();
  await page.waitForURL(/\/library\/[^/?]+$/);
  await expect(page.getByRole("heading", { level: 1, name: "Cozy Cabin Lot" })).toBeVisible();
  await expect(page.getByTestId("version-history")).toHaveAttribute("open", "");
  const download = page.waitForEvent("download");
  await page
    .getByRole("button", { name: /^Download/ })
    .first()
    .click();
  expect((await download).suggestedFilename()).toBe("cozy-cabin-lot-v1.0.package");
  await expect(page).toHaveURL(/\/library\/[^/?]+$/);
  await expectAccessibleInBothThemes(page);
});
