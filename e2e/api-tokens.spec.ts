// "API tokens" in the account area, with and without JavaScript: a token is made with a label and
// shown once (with Copy and a "Copied" toast when JavaScript runs), listed without its secret,
// works as `Authorization: Bearer` for the library manifest, and is refused once revoked.
import bcrypt from "bcryptjs";
import { db, expect, loginAs, test } from "./fixtures";

async function person(label: string) {
  return db.user.create({
    data: {
      email: `${label}-${Date.now().toString(36)}@example.com`,
      fullName: `Person ${label}`,
      mailVerified: true,
      emailVerifiedBy: "CODE",
      tosAccepted: true,
      passwordHash: await bcrypt.hash("Password1!", 4),
    },
  });
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("make a token, see it once, use it for the manifest, revoke it", async ({ page, context, request }) => {
      if (javaScriptEnabled) await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      const user = await person(`tokens-${javaScriptEnabled}`);
      await loginAs(page, user.id);
      await page.goto("/account/updates");
      await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "API tokens" }).click();
      await expect(page.getByRole("heading", { name: "API tokens", level: 1 })).toBeVisible();
      await expect(page.getByText("You have no tokens.")).toBeVisible();

      // The label is required: the browser says so before anything is sent.
      await page.getByRole("button", { name: "Make token" }).click();
      await expect(page.getByLabel("Label")).toBeFocused();

      await page.getByLabel("Label").fill("Sync script");
      await page.getByRole("button", { name: "Make token" }).click();
      await expect(page.getByText("Your new token is ready. Copy it now: it is shown only once.")).toBeVisible();
      const field = page.getByLabel('Token "Sync script"');
      await expect(field).toHaveAttribute("readonly", "");
      const token = await field.inputValue();
      expect(token).toMatch(/^clt_[A-Za-z0-9_-]{43}$/);
      await expect(page.getByRole("button", { name: /^Copy/ })).toHaveCount(javaScriptEnabled ? 1 : 0);
      if (javaScriptEnabled) {
        await page.getByRole("button", { name: /^Copy/ }).click();
        await expect(page.getByTestId("toast").filter({ hasText: "Copied" })).toBeVisible();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
      }
      await expect(page.getByTestId("token-list")).toContainText("Sync script");

      // The token is a credential for tools: the manifest answers it.
      const manifest = await request.get("/api/library/manifest", { headers: { Authorization: `Bearer ${token}` } });
      expect(manifest.status()).toBe(200);
      expect(await manifest.json()).toMatchObject({ posts: expect.any(Array) });
      // Through the whole server (compression included), an unchanged manifest is a 304.
      const etag = manifest.headers()["etag"]!;
      expect(etag).toBeTruthy();
      const again = await request.get("/api/library/manifest", { headers: { Authorization: `Bearer ${token}`, "If-None-Match": etag } });
      expect(again.status()).toBe(304);

      // Opened again, the page lists it but never shows the secret.
      await page.goto("/account/tokens");
      await expect(page.getByTestId("token-list")).toContainText("Sync script");
      expect(await page.content()).not.toContain(token);

      await page.getByRole("button", { name: "Revoke Sync script" }).click();
      await expect(page.getByText("You have no tokens.")).toBeVisible();
      expect((await request.get("/api/library/manifest", { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(401);
      await db.user.delete({ where: { id: user.id } });
    });
  });
}
