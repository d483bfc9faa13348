// Dates in the viewer's locale and time zone (docs/design.md#dates-and-times): a signed-in
// browser in New York with American English sees its first page in the creator's zone (UTC here)
// and every page after in its own, with no hydration mismatch (the fixtures fail a test on any
// console error).
import { db, expect, loginAs, test } from "./fixtures";

test.use({ locale: "en-US", timezoneId: "America/New_York" });

test("a signed-in viewer's dates follow their language at once and their time zone from the next page on", async ({ page }) => {
  const user = await db.user.create({
    data: { email: `dates-${Date.now()}@example.com`, fullName: "Dates Viewer", mailVerified: true, emailVerifiedBy: "CODE" },
  });
  try {
    // 23:30 UTC on 25 November is 18:30 on the 25th in New York; 00:45 UTC on the 26th is 19:45 on the 25th.
    // (A proven address: the tokens page lists tokens only then.)
    await db.apiToken.create({
      data: {
        userId: user.id,
        tokenHash: `e2e-dates-${user.id}`,
        label: "Dated token",
        createdAt: new Date("2026-11-25T23:30:00Z"),
        expiresAt: new Date("2099-02-23T23:30:00Z"),
        lastUsedAt: new Date("2026-11-26T00:45:00Z"),
      },
    });
    await loginAs(page, user.id);
    await page.context().clearCookies({ name: "timeZone" });
    await page.goto("/account/tokens");
    const line = page.getByTestId("token-list").getByRole("listitem").first();
    // The first page: the browser's language, the creator's zone (the cookie is set by this page).
    await expect(line).toContainText(/made Nov 25, 2026 · works until Feb 23, 2099 · last used Nov 26, 2026, 12:45\sAM/);
    expect((await page.context().cookies()).find((cookie) => cookie.name === "timeZone")?.value).toBe(encodeURIComponent("America/New_York"));

    await page.reload();
    await expect(line).toContainText(/made Nov 25, 2026 · works until Feb 23, 2099 · last used Nov 25, 2026, 07:45\sPM/);
    await page.waitForLoadState("networkidle");
  } finally {
    await db.user.delete({ where: { id: user.id } });
  }
});
