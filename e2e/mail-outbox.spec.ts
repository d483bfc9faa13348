// The admins' mail outbox page (docs/product.md#mail-outbox-adminmail), without JavaScript and
// with: the counts by state, a retrying mail with its next attempt and last error, a given-up
// one with its last error, and no way in for anyone else.
import { db, expect, loginAs, test } from "./fixtures";
import { expectAccessibleInBothThemes } from "./axe";

const tag = Date.now().toString(36);
const userIds: string[] = [];
let adminId = "";
let memberId = "";

test.beforeAll(async () => {
  adminId = (
    await db.user.create({ data: { email: `outbox-admin-${tag}@example.com`, mailVerified: true, emailVerifiedBy: "CODE", isAdmin: true, canBeAdmin: true } })
  ).id;
  memberId = (await db.user.create({ data: { email: `outbox-member-${tag}@example.com`, mailVerified: true, emailVerifiedBy: "CODE" } })).id;
  userIds.push(adminId, memberId);
  const now = Date.now();
  await db.outboxMail.createMany({
    data: [
      {
        idempotencyKey: `e2e-retrying-${tag}`,
        kind: "release",
        userId: memberId,
        to: `retrying-${tag}@example.com`,
        subject: "Now available in the Creator Library",
        text: "x",
        html: "<p>x</p>",
        attempts: 2,
        nextAttemptAt: new Date(now + 60_000),
        giveUpAt: new Date(now + 47 * 3_600_000),
        lastError: "ESOCKET: connect ECONNREFUSED 127.0.0.1:25",
      },
      {
        idempotencyKey: `e2e-given-up-${tag}`,
        kind: "digest",
        userId: memberId,
        to: `given-up-${tag}@example.com`,
        subject: "New in the Creator Library",
        text: "",
        html: "",
        status: "GIVEN_UP",
        attempts: 40,
        createdAt: new Date(now - 49 * 3_600_000),
        giveUpAt: new Date(now - 3_600_000),
        gaveUpAt: new Date(now - 3_600_000),
        lastError: "ETIMEDOUT: Connection timeout",
      },
    ],
  });
});

test.afterAll(async () => {
  await db.user.deleteMany({ where: { id: { in: userIds } } });
});

for (const javaScriptEnabled of [false, true]) {
  test.describe(javaScriptEnabled ? "with JavaScript" : "without JavaScript", () => {
    test.use({ javaScriptEnabled });

    test("an admin sees what waits and what was given up, each with its last error", async ({ page }) => {
      await loginAs(page, adminId);
      await page.goto("/admin");
      await page.getByRole("link", { name: "Open the mail outbox" }).click();
      await expect(page).toHaveURL(/\/admin\/mail$/);
      await expect(page.getByRole("heading", { level: 1, name: "Mail outbox" })).toBeVisible();
      const counts = page.getByTestId("outbox-counts");
      await expect(counts.getByText("Retrying")).toBeVisible();
      await expect(counts.getByText("Given up")).toBeVisible();

      const waiting = page
        .getByTestId("outbox-unsent")
        .getByRole("row")
        .filter({ hasText: `retrying-${tag}@example.com` });
      await expect(waiting).toContainText("Retrying");
      await expect(waiting).toContainText("ESOCKET: connect ECONNREFUSED 127.0.0.1:25");
      const givenUp = page
        .getByTestId("outbox-given-up")
        .getByRole("row")
        .filter({ hasText: `given-up-${tag}@example.com` });
      await expect(givenUp).toContainText("Given up");
      await expect(givenUp).toContainText("ETIMEDOUT: Connection timeout");
      if (javaScriptEnabled) await expectAccessibleInBothThemes(page);
    });
  });
}

test("anyone but an admin is sent away", async ({ page }) => {
  await loginAs(page, memberId);
  await page.goto("/admin/mail");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText(`retrying-${tag}@example.com`)).toHaveCount(0);
});
