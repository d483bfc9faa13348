// "Updates by feed and mail" on the account area and the unsubscribe page, with and without
// JavaScript: the feed link is shown once and regenerating kills the old one; the mail choices
// save; the unsubscribe button switches the mails off.
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
      await page.getByRole("link", { name: "Updates by feed and mail" }).click();
      await expect(page.getByRole("heading", { name: "Updates by feed and mail" })).toBeVisible();
      await expect(page.getByText("You have no feed link yet.")).toBeVisible();

      await page.getByRole("button", { name: "Make my feed link" }).click();
      await expect(page.getByText("Your new feed link is ready. Copy it now: it is shown only once.")).toBeVisible();
      const first = await page.getByLabel("Feed address").inputValue();
      expect(first).toMatch(/\/feeds\/[A-Za-z0-9_-]{43}\.atom$/);
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
