// The admin area in Chromium: finding and editing a user, code search, CSV import, refusals,
// the no-JavaScript editor and the phone layout.
import type { Page } from "@playwright/test";
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

async function demoUser(email: string) {
  return db.user.findUniqueOrThrow({ where: { email } });
}

async function loginAsAdmin(page: Page) {
  await loginAs(page, (await demoUser("admin@example.com")).id);
}

function libraryCard(page: Page, title: string) {
  return page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

test("non-admins are sent to the home page", async ({ page }) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/$/);
  await loginAs(page, (await demoUser("fan@example.com")).id);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/$/);
  const api = await page.request.get("/api/admin/users");
  expect(api.status()).toBe(403);
});

test("an admin finds a user, grants a post through the picker, saves, and the user's library shows it unlocked", async ({ page, browser }) => {
  const fan = await demoUser("fan@example.com");
  await db.unlockedContent.deleteMany({ where: { userId: fan.id } });

  // Before: locked for the fan.
  const fanContext = await browser.newContext();
  const fanPage = await fanContext.newPage();
  await acceptAdultWarning(fanPage);
  await loginAs(fanPage, fan.id);
  await fanPage.goto("/library");
  await expect(libraryCard(fanPage, "Royal Ballroom").getByRole("img", { name: "Locked" })).toBeVisible();

  await loginAsAdmin(page);
  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Admin", level: 1 })).toBeVisible();
  await page.getByLabel("Search users").fill("fan@exa");
  await page.waitForURL(/search=fan%40exa/);
  const rows = page.getByTestId("user-list").locator("tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Demo Fan");
  await rows.first().getByRole("link", { name: /Edit/ }).click();

  const editor = page.getByTestId("user-editor");
  await expect(editor.getByRole("heading", { name: "Edit user: Demo Fan" })).toBeFocused();
  await editor.getByLabel("Find a post to unlock").fill("ballroom");
  await editor.getByRole("checkbox", { name: "Royal Ballroom" }).check();
  // Kept locally until Save: the chip shows the title, the database has nothing yet.
  await expect(editor.getByRole("list", { name: "Unlocked posts" })).toContainText("Royal Ballroom");
  await expect(editor.getByText("Unsaved changes")).toBeVisible();
  expect(await db.unlockedContent.count({ where: { userId: fan.id } })).toBe(0);

  // Another tool on the page revalidates the data; the unsaved pick stays.
  const codeSearch = page.getByRole("region", { name: "Code search" });
  await codeSearch.getByLabel("Code").fill(String(fan.number));
  await codeSearch.getByLabel("Keyword").fill("nothing-like-this");
  await codeSearch.getByRole("button", { name: "Search" }).click();
  await expect(codeSearch.getByTestId("code-search-result")).toContainText("0 matching downloads.");
  await expect(editor.getByRole("checkbox", { name: "Royal Ballroom" })).toBeChecked();

  // A shop email added as unverified goes with the same Save.
  await editor.getByLabel("Add Ko-fi email (unverified)").fill("not-an-email");
  await editor.getByRole("button", { name: "Add", exact: true }).click();
  await expect(editor.getByText("Invalid email format.")).toBeVisible();
  await editor.getByLabel("Add Ko-fi email (unverified)").fill("fan-shop@buyer.example");
  await editor.getByRole("button", { name: "Add", exact: true }).click();
  await expect(editor.getByText("fan-shop@buyer.example")).toBeVisible();

  // Save posts the draft to the page's own action (the same one the no-JavaScript form uses; with
  // JavaScript at its single fetch address, /admin.data).
  const saved = page.waitForRequest((request) => request.method() === "POST" && new URL(request.url()).pathname === "/admin.data");
  await editor.getByRole("button", { name: "Save" }).click();
  const body = new URLSearchParams((await saved).postData() ?? "");
  expect(body.get("intent")).toBe("save-user");
  expect(body.getAll("kofiEmail")).toContain("fan-shop@buyer.example");
  expect(body.has("patreonId")).toBe(false);
  await expect(page.getByTestId("toast").filter({ hasText: "User updated successfully." })).toBeVisible();
  await expect(page.getByTestId("user-editor")).toHaveCount(0);

  const unlocked = await db.unlockedContent.findMany({ where: { userId: fan.id }, include: { post: true } });
  expect(unlocked.map((unlock) => unlock.post.title)).toEqual(["Royal Ballroom"]);
  expect(await db.shopEmail.findFirst({ where: { userId: fan.id, email: "fan-shop@buyer.example" } })).toMatchObject({ verifiedEmail: null });
  await expect(page.getByTestId("audit-log").locator("tbody tr").first()).toContainText("user.update");

  // After: the fan owns it.
  await fanPage.reload();
  await expect(libraryCard(fanPage, "Royal Ballroom").getByText("You own this item")).toBeVisible();
  await fanContext.close();
});

test("Unlock objects adds the early-supporter posts without losing the editor's unsaved picks", async ({ page }) => {
  const early = await db.user.create({ data: { email: `early-bird-${Date.now()}@example.com`, fullName: "Early Bird", mailVerified: true } });
  await db.pledgeEvent.create({
    data: {
      id: `pledge_start:e2e-${early.id}`,
      userId: early.id,
      type: "pledge_start",
      amountCents: 1000,
      date: new Date(Date.now() - 365 * 24 * 3600 * 1000),
      tierId: "21786318",
      tierTitle: "Tier 3",
      paymentStatus: "Paid",
    },
  });
  await loginAsAdmin(page);
  await page.goto(`/admin?user=${early.id}`);
  const editor = page.getByTestId("user-editor");
  // The pledge history shows dollars.
  await expect(editor.getByRole("cell", { name: "$10.00" })).toBeVisible();
  await editor.getByRole("checkbox", { name: "Lakeside Pier" }).check();
  await editor.getByRole("button", { name: "Unlock objects" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Unlocked objects updated. Added 2, removed 0." })).toBeVisible();
  const chips = editor.getByRole("list", { name: "Unlocked posts" });
  for (const title of ["Lakeside Pier", "Autumn Hair Collection", "Gothic Cathedral Windows"]) await expect(chips).toContainText(title);
  await editor.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "User updated successfully." })).toBeVisible();
  const unlocked = await db.unlockedContent.findMany({ where: { userId: early.id }, include: { post: true }, orderBy: { post: { title: "asc" } } });
  expect(unlocked.map((unlock) => [unlock.post.title, unlock.source])).toEqual([
    ["Autumn Hair Collection", "SYNC"],
    ["Gothic Cathedral Windows", "SYNC"],
    ["Lakeside Pier", "ADMIN"],
  ]);
});

test("an admin marks a pending Ko-fi email verified; it applies on Save", async ({ page }) => {
  const buyer = await db.user.create({ data: { email: `pending-buyer-${Date.now()}@example.com`, fullName: "Pending Buyer", mailVerified: true } });
  await db.shopEmail.create({ data: { userId: buyer.id, email: "pending@kofi.example" } });
  await loginAsAdmin(page);
  await page.goto(`/admin?user=${buyer.id}`);
  const editor = page.getByTestId("user-editor");
  const row = editor.getByRole("listitem").filter({ hasText: "pending@kofi.example" });
  await expect(row).toContainText("Unverified");
  await row.getByRole("button", { name: "Mark verified" }).click();
  await expect(row).not.toContainText("Unverified");
  await expect(row).toContainText("Verified");
  await expect(row).toContainText("Not saved");
  expect((await db.shopEmail.findFirstOrThrow({ where: { userId: buyer.id } })).verifiedAt).toBeNull();
  await editor.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "User updated successfully." })).toBeVisible();
  expect((await db.shopEmail.findFirstOrThrow({ where: { userId: buyer.id } })).verifiedEmail).toBe("pending@kofi.example");
});

test("an admin removes a mistyped Ko-fi email; it goes on Save", async ({ page }) => {
  const buyer = await db.user.create({ data: { email: `typo-buyer-${Date.now()}@example.com`, fullName: "Typo Buyer", mailVerified: true } });
  await db.shopEmail.createMany({
    data: [
      { userId: buyer.id, email: "typo@kofi.example", verifiedEmail: "typo@kofi.example", verifiedAt: new Date() },
      { userId: buyer.id, email: "right@kofi.example" },
    ],
  });
  await loginAsAdmin(page);
  await page.goto(`/admin?user=${buyer.id}`);
  const editor = page.getByTestId("user-editor");
  await editor.getByRole("button", { name: "Remove typo@kofi.example" }).click();
  await expect(editor.getByRole("listitem").filter({ hasText: "typo@kofi.example" })).toContainText("Removed, not saved");
  await expect(editor.getByText("Unsaved changes")).toBeVisible();
  expect(await db.shopEmail.count({ where: { userId: buyer.id } })).toBe(2);
  await editor.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "User updated successfully." })).toBeVisible();
  expect((await db.shopEmail.findMany({ where: { userId: buyer.id } })).map((row) => row.email)).toEqual(["right@kofi.example"]);
});

test("code search finds the downloads of a leak-trace number by keyword", async ({ page }) => {
  const supporter = await demoUser("supporter@example.com");
  const post = await db.post.findFirstOrThrow({ where: { title: "Crystal Cave Build" } });
  await db.download.create({ data: { userId: supporter.id, postId: post.id, version: "V1.0" } });

  await loginAsAdmin(page);
  await page.goto("/admin");
  const search = page.getByRole("region", { name: "Code search" });
  await search.getByRole("button", { name: "Search" }).click();
  await expect(search.getByText("Please enter both code and keyword")).toBeVisible();

  await search.getByLabel("Code").fill(String(supporter.number));
  await search.getByLabel("Keyword").fill("crystal");
  await search.getByRole("button", { name: "Search" }).click();
  const result = search.getByTestId("code-search-result");
  const count = await db.download.count({ where: { userId: supporter.id, post: { title: { contains: "crystal", mode: "insensitive" } } } });
  await expect(result).toContainText(`Number ${supporter.number}:`);
  await expect(result).toContainText(`${count} matching download${count === 1 ? "" : "s"}.`);
  await expect(result.locator("tbody tr")).toHaveCount(count);
  await expect(result.locator("tbody tr").first()).toContainText("Crystal Cave Build");
  await expect(result.locator("tbody tr").first()).toContainText(post.id);
  // The version of each download and the account's email; never the raw download id.
  await expect(result.getByRole("columnheader", { name: "Version" })).toBeVisible();
  await expect(result.locator("tbody tr").first()).toContainText("V1.0");
  await expect(result).toContainText(supporter.email!);
  const newest = await db.download.findFirstOrThrow({ where: { userId: supporter.id }, orderBy: { createdAt: "desc" } });
  await expect(result).not.toContainText(newest.id);
  // The account links to its user editor.
  await result.getByTestId("trace-user").click();
  await expect(page).toHaveURL(new RegExp(`user=${supporter.id}`));
});

test("a CSV import uploads and reports its rows", async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto("/admin");
  const importer = page.getByRole("region", { name: "Import purchases" });
  // The form names the columns it needs and the date formats it takes.
  await expect(importer.getByTestId("import-columns")).toContainText("Required columns: DateTime (UTC), TransactionType, TransactionId, BuyerEmail, Item.");
  await expect(importer.getByText("MM/DD/YYYY HH:MM:SS (Ko-fi's export) or YYYY-MM-DD HH:MM:SS, in UTC", { exact: false })).toBeVisible();
  await importer.getByRole("button", { name: "Import" }).click();
  await expect(importer.getByText("Please select a file first.")).toBeVisible();

  await importer.getByLabel("CSV file").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await importer.getByRole("button", { name: "Import" }).click();
  await expect(importer.getByText("Please select a .csv file.")).toBeVisible();

  // Unique per run, so a retried test imports afresh.
  const run = Date.now().toString(36);
  const csv = [
    "DateTime (UTC),TransactionType,TransactionId,BuyerEmail,Item",
    `05/01/2024 10:00,Shop Order,TX-E2E-${run}-1,buyer-one@example.com,Royal Ballroom`,
    `05/02/2024 11:30,Shop Order,TX-E2E-${run}-2,buyer-two@example.com,Zen Garden Stones`,
    `05/03/2024 09:00,Donation,TX-E2E-${run}-3,buyer-two@example.com,`,
  ].join("\n");
  await importer.getByLabel("CSV file").setInputFiles({ name: "transactions.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await importer.getByRole("button", { name: "Import" }).click();
  const report = importer.getByTestId("import-report");
  await expect(report).toContainText("Imported: 2 · Duplicates: 0 · Rejected: 1");
  await expect(report.locator("tbody tr")).toHaveCount(1);
  await expect(report.locator("tbody tr").first()).toContainText("Not a shop order (Donation).");
  expect(await db.purchase.count({ where: { transactionId: { startsWith: `TX-E2E-${run}-` } } })).toBe(2);

  // The same file again: every shop order is a duplicate.
  await importer.getByLabel("CSV file").setInputFiles({ name: "transactions.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await importer.getByRole("button", { name: "Import" }).click();
  await expect(report).toContainText("Imported: 0 · Duplicates: 2 · Rejected: 1");
});

test("Force interval shows what the run did (here: the platform is not configured)", async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto("/admin");
  const job = page.getByRole("region", { name: "Interval job" });
  await job.getByRole("button", { name: "Force interval" }).click();
  await expect(job.getByTestId("interval-result")).toContainText("Error forcing interval.");
  await expect(job.getByTestId("interval-result")).toContainText("PATREON_CREATOR_ACCESS_TOKEN is not set.");
  await expect(job.locator("tbody tr").first()).toContainText("admin");
  await expect(job.locator("tbody tr").first()).toContainText("failed");
  await expect(page.getByTestId("audit-log").locator("tbody tr").first()).toContainText("interval.force");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the editor saves through a plain form post", async ({ page }) => {
    const supporter = await demoUser("supporter@example.com");
    await loginAsAdmin(page);
    await page.goto(`/admin?search=supporter%40example.com`);
    await page.getByTestId("user-list").getByRole("link", { name: /Edit/ }).first().click();
    const editor = page.getByTestId("user-editor");
    await editor.getByLabel("Full name").fill("Renamed Without JS");
    await editor.getByLabel("Restricted").check();
    await editor.getByRole("button", { name: "Save" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "User updated successfully." })).toBeVisible();
    await expect(page.getByTestId("user-editor")).toHaveCount(0);
    const saved = await db.user.findUniqueOrThrow({ where: { id: supporter.id } });
    expect(saved).toMatchObject({ fullName: "Renamed Without JS", restricted: true });
    await db.user.update({ where: { id: supporter.id }, data: { fullName: supporter.fullName, restricted: false } });
  });
});

test("on a phone the admin page does not scroll sideways; wide tables scroll inside their box", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await loginAsAdmin(page);
  const fan = await demoUser("fan@example.com");
  await page.goto(`/admin?user=${fan.id}`);
  await expect(page.getByTestId("user-editor")).toBeVisible();
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll("body *")]
      .filter(
        (element) => element.getBoundingClientRect().right > width + 1 && !element.parentElement?.closest(".table-scroll") && !element.closest(".skip-link"),
      )
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`);
    return { extra: document.documentElement.scrollWidth - width, wide: wide.slice(0, 5) };
  });
  expect(overflow).toEqual({ extra: 0, wide: [] });
  const save = page.getByRole("button", { name: "Save" });
  await save.scrollIntoViewIfNeeded();
  await expect(save).toBeVisible();
});

test("on a phone the user list is a list of cards: no sideways scrolling, every Edit button on screen", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await loginAsAdmin(page);
  await page.goto("/admin");
  const list = page.getByTestId("user-list");
  await expect(list.locator("tbody tr").first()).toBeVisible();
  const box = page.locator(".table-scroll").filter({ has: list });
  expect(await box.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0);
  const edits = list.getByRole("link", { name: /^Edit/ });
  expect(await edits.count()).toBeGreaterThan(0);
  for (const edit of await edits.all()) {
    const rect = (await edit.boundingBox())!;
    expect(rect.x).toBeGreaterThanOrEqual(0);
    expect(rect.x + rect.width).toBeLessThanOrEqual(375);
  }
  // Each value says which column it is.
  const first = list.locator("tbody tr").first();
  await expect(first.locator("td[data-label='Email']")).toBeVisible();
  expect(await first.locator("td[data-label='Email']").evaluate((cell) => getComputedStyle(cell, "::before").content)).toBe('"Email"');

  // A wide screen keeps the table.
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await list.evaluate((table) => getComputedStyle(table).display)).toBe("table");
  await expect(list.getByRole("columnheader", { name: "Email" })).toBeVisible();
});

test("check access picks its user by email without JavaScript, offers the matches of a name, and lines the button up", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const supporter = await demoUser("supporter@example.com");
  const post = await db.post.findFirstOrThrow({ where: { title: "Crystal Cave Build" } });
  await loginAsAdmin(page);
  await page.goto("/admin/access-check");
  // First load: nothing asked, nothing refused.
  await expect(page.getByRole("alert")).toHaveCount(0);
  await page.getByLabel("User", { exact: true }).fill("supporter@example.com");
  await page.getByLabel("Post (title or id)").fill(post.title);
  const button = page.getByRole("button", { name: "Check access" });
  const [input, box] = [await page.getByLabel("Post (title or id)").boundingBox(), await button.boundingBox()];
  expect(Math.abs(input!.y + input!.height - (box!.y + box!.height))).toBeLessThanOrEqual(1);
  await button.click();
  const result = page.getByTestId("access-check-result");
  await expect(result).toContainText(`“${post.title}”`);
  await expect(result).toContainText(`No. ${supporter.number}`);
  await expect(page.getByLabel("User", { exact: true })).toHaveValue("supporter@example.com");
  // Several accounts start with the same letters: the page offers them to choose from.
  await page.getByLabel("User", { exact: true }).fill("Demo");
  await page.getByRole("button", { name: "Check access" }).click();
  const candidates = page.getByTestId("access-check-candidates");
  await expect(candidates).toContainText("Several users match “Demo”: choose one.");
  await candidates.getByRole("link").filter({ hasText: "supporter@example.com" }).click();
  await expect(page.getByTestId("access-check-result")).toContainText(`No. ${supporter.number}`);
  // Unknown users are refused in words.
  await page.getByLabel("User", { exact: true }).fill("nobody-here@example.com");
  await page.getByRole("button", { name: "Check access" }).click();
  await expect(page.getByRole("alert")).toHaveText("User not found.");
  await context.close();
});

test("the post table opens each post's editor, which starts Set Index at the post's position and shortens the SHA-256 with a copy button", async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto("/admin");
  await page.getByRole("link", { name: "Open posts" }).click();
  await expect(page).toHaveURL("/admin/posts");
  const rows = page.getByTestId("post-table-row");
  const second = await rows.nth(1).getAttribute("data-post-id");
  await rows.first().getByRole("link").first().click();
  await expect(page.getByTestId("post-editor").getByLabel("Index (0 = first)")).toHaveValue("0");
  await page.goto(`/admin/posts/${second}`);
  await expect(page.getByTestId("post-editor").getByLabel("Index (0 = first)")).toHaveValue("1");
  const hashed = await db.postVersion.findFirstOrThrow({
    where: { sha256: { not: null }, post: { enabled: true } },
    select: { postId: true },
  });
  await page.goto(`/admin/posts/${hashed.postId}`);
  const editor = page.getByTestId("post-editor");
  await editor.getByTestId("admin-version-history").locator("> summary").click();
  const hash = editor.getByTestId("content-hash").first();
  await expect(hash.locator("code")).toHaveText(/^[0-9a-f]{8}…[0-9a-f]{8}$/);
  await expect(hash.getByRole("button", { name: /Copy the SHA-256/ })).toBeVisible();
});

test("the post table filters and sorts in the address, without JavaScript too", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await loginAsAdmin(page);
  await page.goto("/admin/posts");
  await page.getByLabel("Status").selectOption({ label: "Published" });
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL("/admin/posts?search=&status=published");
  const statuses = await page.getByTestId("post-table-row").locator('td[data-label="Status"]').allTextContents();
  expect(statuses.length).toBeGreaterThan(0);
  expect(statuses.every((text) => text.startsWith("Published"))).toBe(true);
  await page.goto("/admin/posts");
  await page.getByRole("link", { name: "Downloads" }).click();
  await page.getByRole("link", { name: "Downloads ▲" }).click();
  await expect(page).toHaveURL("/admin/posts?sort=downloads&dir=desc");
  const counts = (await page.getByTestId("post-table-row").locator('td[data-label="Downloads"]').allTextContents()).map(Number);
  expect(counts).toEqual([...counts].sort((a, b) => b - a));
  await context.close();
});
