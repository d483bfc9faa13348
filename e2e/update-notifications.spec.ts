// "Updates by feed and mail" on the account area and the unsubscribe page, with and without
// JavaScript: the feed link is shown once (with Copy and a "Copied" toast when JavaScript runs)
// and regenerating kills the old one; the mail choices save; the unsubscribe button switches
// the mails off. And "Updates for you" after "Download all": one state, never a "(0)" button.
import bcrypt from "bcryptjs";
import { db, expect, loginAs, test } from "./fixtures";

async function person(label: string) {
  return db.user.create({
    data: {
      email: `${label}-${Date.now().toString(36)}@example.com`,
      fullName: `Person ${label}`,
      mailVerified: true,
      emailVerifiedBy: "CODE",
      passwordHash: await bcrypt.hash("Password1!", 4),
    },
  });
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("feed link, mail choices and unsubscribe", async ({ page }) => {
      const user = await person(`updates-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/login");
      await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Feed and mails" }).click();
      await expect(page.getByRole("heading", { name: "Updates by feed and mail" })).toBeVisible();
      await expect(page.getByText("You have no feed link yet.")).toBeVisible();

      await page.getByRole("button", { name: "Make my feed link" }).click();
      await expect(page.getByText("Your new feed link is ready. Copy it now: it is shown only once.")).toBeVisible();
      const first = await page.getByLabel("Feed address").inputValue();
      expect(first).toMatch(/\/feeds\/[A-Za-z0-9_-]{43}\.atom$/);
      // Read-only and labelled (so it can be selected and copied by hand), with how to use it.
      await expect(page.getByLabel("Feed address")).toHaveAttribute("readonly", "");
      await expect(page.getByTestId("feed-reader-help")).toContainText("paste this address into your feed reader");
      // The Copy button needs JavaScript (the clipboard); without it there is none.
      await expect(page.getByRole("button", { name: "Copy" })).toHaveCount(javaScriptEnabled ? 1 : 0);
      const firstPath = new URL(first).pathname;
      expect((await page.request.get(firstPath)).status()).toBe(200);

      await expect(page.getByText("Making a new link stops the old one at once")).toBeVisible();
      await page.getByRole("button", { name: "Regenerate feed link" }).click();
      await expect(page.getByLabel("Feed address")).not.toHaveValue(first);
      const second = await page.getByLabel("Feed address").inputValue();
      expect((await page.request.get(firstPath)).status()).toBe(404);
      expect((await page.request.get(new URL(second).pathname)).status()).toBe(200);

      await page.getByLabel("a new version of something I own").check();
      await page.getByRole("button", { name: "Save mail choices" }).click();
      await expect(page.getByText("Your mail choices are saved.")).toBeVisible();
      await expect.poll(async () => (await db.updateSubscription.findUnique({ where: { userId: user.id } }))?.notifyNewVersions).toBe(true);
      const row = await db.updateSubscription.findUniqueOrThrow({ where: { userId: user.id } });
      expect(row.notifyNewPosts).toBe(false);

      await page.goto(`/unsubscribe/${row.unsubscribeToken}`);
      await page.getByRole("button", { name: "Unsubscribe" }).click();
      await expect(page.getByText("You will get no more update mails.")).toBeVisible();
      await expect.poll(async () => (await db.updateSubscription.findUniqueOrThrow({ where: { userId: user.id } })).notifyNewVersions).toBe(false);
      // Opened again, the page says so (its words come from a module the browser has too).
      await page.goto(`/unsubscribe/${row.unsubscribeToken}`);
      await expect(page.getByText("This address gets no update mails.")).toBeVisible();
      await expect(page.getByRole("button", { name: "Unsubscribe" })).toHaveCount(0);
      await db.user.delete({ where: { id: user.id } });
    });
  });
}

test("Copy puts the feed address on the clipboard and says Copied in a toast that closes", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const user = await person("updates-copy");
  await loginAs(page, user.id);
  await page.goto("/account/notifications");
  await page.getByRole("button", { name: "Make my feed link" }).click();
  const address = await page.getByLabel("Feed address").inputValue();
  await page.getByRole("button", { name: "Copy" }).click();
  const toast = page.getByTestId("toast").filter({ hasText: "Copied" });
  await expect(toast).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
  await expect(toast).toHaveCount(0, { timeout: 8000 });
  await db.user.delete({ where: { id: user.id } });
});

test("the feed and mail parts are set apart: the mail choices are a styled group, not the browser's default box", async ({ page }) => {
  const user = await person("updates-look");
  await loginAs(page, user.id);
  await page.goto("/account/notifications");
  await page.getByRole("button", { name: "Make my feed link" }).click();
  await expect(page.getByRole("button", { name: "Regenerate feed link" })).toBeVisible();
  const regenerate = await page.getByRole("button", { name: "Regenerate feed link" }).boundingBox();
  const mails = await page.getByRole("heading", { name: "Mails" }).boundingBox();
  expect(mails!.y - (regenerate!.y + regenerate!.height)).toBeGreaterThanOrEqual(16);
  const group = page.getByRole("group", { name: "Mail me when there is" });
  const look = await group.evaluate((element) => {
    const style = getComputedStyle(element);
    const probe = document.createElement("span");
    document.body.append(probe);
    probe.style.color = "var(--border)";
    const border = getComputedStyle(probe).color;
    probe.remove();
    return { colour: style.borderTopColor, expected: border, radius: style.borderTopLeftRadius };
  });
  expect(look.colour).toBe(look.expected);
  expect(parseFloat(look.radius)).toBeGreaterThan(0);
  await db.user.delete({ where: { id: user.id } });
});

test("Updates for you after Download all shows one state: up to date, without a (0) button", async ({ page }) => {
  const user = await db.user.create({
    data: {
      email: `updates-one-${Date.now().toString(36)}@example.com`,
      mailVerified: true,
      emailVerifiedBy: "CODE",
      currentTierId: "8825009",
      tosAccepted: true,
    },
  });
  const owned = await db.post.findFirstOrThrow({ where: { title: "Minimalist Kitchen" }, select: { id: true } });
  await db.download.create({ data: { userId: user.id, postId: owned.id, version: "V0.9" } });
  await loginAs(page, user.id);
  // Remembers whether a "Download all updates (0)" button or two states at once ever showed.
  await page.addInitScript(() => {
    const seen = { zero: false, both: false };
    (window as unknown as { seen: typeof seen }).seen = seen;
    new MutationObserver(() => {
      const buttons = [...document.querySelectorAll("button")].map((button) => button.textContent ?? "");
      if (buttons.some((text) => text.includes("(0)"))) seen.zero = true;
      const upToDate = document.querySelector('[data-testid="no-updates"]');
      if (upToDate && (document.querySelector('[data-testid="updates-list"]') || document.querySelector('[data-testid="download-all"]'))) seen.both = true;
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.goto("/account/updates");
  await expect(page.getByTestId("updates-list").getByRole("listitem")).toHaveCount(1);
  await expect(page.getByTestId("no-updates")).toHaveCount(0);
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download all updates (1)" }).click();
  await download;
  await expect(page.getByTestId("no-updates")).toHaveText(/1 update downloaded\. You are up to date\./);
  await expect(page.getByText("You are up to date.")).toHaveCount(1);
  await expect(page.getByRole("button", { name: /Download all updates/ })).toHaveCount(0);
  await expect(page.getByTestId("updates-list")).toHaveCount(0);
  await expect(page.getByTestId("no-updates").getByRole("link", { name: "Go to the library" })).toHaveAttribute("href", "/library");
  expect(await page.evaluate(() => (window as unknown as { seen: { zero: boolean; both: boolean } }).seen)).toEqual({ zero: false, both: false });
  // Reloaded, the page still shows the one state.
  await page.reload();
  await expect(page.getByTestId("no-updates")).toHaveText(/^You are up to date\./);
  await db.user.delete({ where: { id: user.id } });
});
