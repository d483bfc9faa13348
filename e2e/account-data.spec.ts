// The account page's "Download my data" and "Delete my account", with and without JavaScript.
import bcrypt from "bcryptjs";
import { readFile } from "node:fs/promises";
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

    test("Download my data saves a JSON file of the account", async ({ page }) => {
      const user = await person(`export-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/login");
      const download = page.waitForEvent("download");
      await page.getByRole("button", { name: "Download my data" }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^creator-library-data-\d{4}-\d\d-\d\d\.json$/);
      const data = JSON.parse(await readFile((await file.path())!, "utf8")) as { account: { email: string } };
      expect(data.account.email).toBe(user.email);
      await db.user.delete({ where: { id: user.id } });
    });

    test("Delete my account asks for the password, then logs out and removes the account", async ({ page }) => {
      const user = await person(`delete-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/login");
      await page.getByRole("link", { name: "Delete my account" }).click();
      await expect(page.getByRole("heading", { name: "Delete my account" })).toBeVisible();
      await page.getByLabel("Your password").fill("not it");
      await page.getByRole("button", { name: "Delete my account" }).click();
      await expect(page.getByText("Wrong password.")).toBeVisible();
      await page.getByLabel("Your password").fill("Password1!");
      await page.getByRole("button", { name: "Delete my account" }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByTestId("account-link")).toHaveText("Login");
      expect(await db.user.count({ where: { id: user.id } })).toBe(0);
    });
  });
}
