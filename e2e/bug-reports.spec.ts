// Bug reports in the browser (docs/product.md#bug-reports): a downloader of the demo's reported
// post sees its known issues (never who reported), reports a bug through the post page's form,
// and an admin confirms it on /admin/reports.
import { acceptAdultWarning, db, expect, loginAs, test } from "./fixtures";

test("a downloader reports a bug on the post page and an admin confirms it", async ({ page }) => {
  const demo = await db.bugReport.findFirstOrThrow({ where: { state: "NEW" }, include: { user: true } });
  const reporters = (await db.bugReport.findMany({ select: { userId: true } })).map((row) => row.userId);
  const downloader = await db.download.findFirstOrThrow({ where: { postId: demo.postId, userId: { notIn: reporters } } });
  await acceptAdultWarning(page);
  await loginAs(page, downloader.userId);
  await page.goto(`/library/${demo.postId}`);
  const issues = page.getByTestId("known-issues");
  await expect(issues.getByRole("heading", { name: "Known issues" })).toBeVisible();
  await expect(issues.getByText(demo.title)).toBeVisible();
  await expect(issues).not.toContainText(demo.user.fullName ?? "no name");
  await issues.getByText("Report a bug").click();
  await issues.getByLabel("Title").fill("Sleeves stretch in the mirror");
  await issues.getByLabel("What happens").fill("In the mirror the sleeves stretch to the floor.");
  await issues.getByLabel("Game patch (optional)").fill("1.113");
  await issues.getByRole("button", { name: "Send the report" }).click();
  await expect(issues.getByText("Sleeves stretch in the mirror")).toBeVisible();
  const made = await db.bugReport.findFirstOrThrow({ where: { title: "Sleeves stretch in the mirror" } });
  expect(made).toMatchObject({ userId: downloader.userId, gamePatch: "1.113", state: "NEW" });

  await loginAs(page, (await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } })).id);
  await page.goto(`/admin/reports?state=NEW&post=${demo.postId}`);
  const card = page.getByTestId("triage-report").filter({ hasText: "Sleeves stretch in the mirror" });
  await expect(card).toContainText("game patch 1.113");
  await card.getByLabel("State", { exact: true }).selectOption("CONFIRMED");
  await card.getByRole("button", { name: "Save the state of Sleeves stretch in the mirror" }).click();
  await expect.poll(async () => (await db.bugReport.findUniqueOrThrow({ where: { id: made.id } })).state).toBe("CONFIRMED");
});
