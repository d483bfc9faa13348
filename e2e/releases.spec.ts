// Releases in the browser (docs/product.md#releases), with and without JavaScript: an admin sets a
// post's steps from a preset (a live preview with JavaScript) and schedules it; a member's locked
// card says when their turn comes, a guest's when it becomes free; a scheduled post stays hidden
// from them; and a step that opens shows on the next page view with no write at all.
import type { Page } from "@playwright/test";
import { db, expect, loginAs, test } from "./fixtures";

const TIER_1 = "8824971";
const TIER_2 = "8825009";
const TIER_3 = "21786318";
const DAY = 86_400_000;
const tag = Date.now().toString(36);
const postIds: string[] = [];
const userIds: string[] = [];
let adminId = "";
let tier1Id = "";
let tier2Id = "";

async function post(suffix: string, data: { publishAt?: Date; firstPublishedAt?: Date } = {}) {
  const id = `rel${tag}${suffix}`;
  postIds.push(id);
  await db.post.create({
    data: {
      id,
      title: `Release ${tag} ${suffix}`,
      paidContent: true,
      firstPublishedAt: data.firstPublishedAt ?? data.publishAt ?? new Date(Date.now() - 2 * DAY),
      publishAt: data.publishAt ?? null,
      orderDate: new Date("2000-01-01T00:00:00Z"),
      tiers: { create: [{ tierId: TIER_3, kind: "CURRENT" }] },
    },
  });
  return id;
}

async function step(postId: string, position: number, audience: string | null, tierIds: string[], opensAt: Date) {
  await db.releaseStep.create({ data: { postId, position, audienceTierId: audience, tierIds, opensOn: opensAt, opensAt } });
}

test.beforeAll(async () => {
  const cascade = await post("cascade");
  await step(cascade, 0, TIER_2, [TIER_2, TIER_3], new Date(Date.now() + 5 * DAY + 3_600_000));
  await step(cascade, 1, null, [], new Date(Date.now() + 40 * DAY + 3_600_000));
  await post("scheduled", { publishAt: new Date(Date.now() + 3 * DAY) });
  await post("preset");
  const user = (email: string, data: { isAdmin?: boolean; currentTierId?: string }) =>
    db.user.create({
      data: { email, fullName: email, mailVerified: true, emailVerifiedBy: "CODE", tosAccepted: true, ...data, canBeAdmin: data.isAdmin ?? false },
    });
  adminId = (await user(`release-admin-${tag}@example.com`, { isAdmin: true })).id;
  tier1Id = (await user(`release-t1-${tag}@example.com`, { currentTierId: TIER_1 })).id;
  tier2Id = (await user(`release-t2-${tag}@example.com`, { currentTierId: TIER_2 })).id;
  userIds.push(adminId, tier1Id, tier2Id);
});

test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: { in: postIds } } });
  await db.user.deleteMany({ where: { id: { in: userIds } } });
});

async function openLibrary(page: Page) {
  await page
    .context()
    .addCookies([{ name: "nsfwAccepted", value: encodeURIComponent(Buffer.from(JSON.stringify(true)).toString("base64")), url: process.env.APP_URL! }]);
  await page.goto(`/library?search=${encodeURIComponent(`Release ${tag}`)}`);
}

/** The post's editor (/admin/posts/{postId}), where the admin plans its release. */
async function openEditor(page: Page, suffix: string) {
  await page.goto(`/admin/posts/rel${tag}${suffix}`);
  return page.getByTestId("post-editor");
}

function card(page: Page, suffix: string, testId = "post-card") {
  return page.getByTestId(testId).filter({ has: page.getByRole("heading", { name: new RegExp(`^Release ${tag} ${suffix}`) }) });
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("a locked card says when the member's turn comes, a guest's when it is free; a scheduled post is hidden", async ({ page }) => {
      await openLibrary(page);
      await expect(card(page, "cascade").getByTestId("release-upcoming")).toHaveText(/^Free for everyone on \d+ \w+ \d{4} \(in 40 days\)$/);
      await expect(card(page, "scheduled")).toHaveCount(0);
      await loginAs(page, tier2Id);
      await openLibrary(page);
      await expect(card(page, "cascade").getByTestId("release-upcoming")).toHaveText(/^Opens to your Tier 2 on \d+ \w+ \d{4} \(in 5 days\)$/);
      await expect(card(page, "scheduled")).toHaveCount(0);
    });

    test("an admin applies a preset, sees the preview, and schedules a post", async ({ page }) => {
      await loginAs(page, adminId);
      const presetEditor = await openEditor(page, "preset");
      await presetEditor.getByLabel("Preset").selectOption({ label: "Top tier first, everyone after 30 days" });
      if (javaScriptEnabled) {
        // The preview follows the form before anything is saved.
        await expect(presetEditor.getByTestId("release-preview")).toHaveText(/^Tier 3 at publishing, free on \d+ \w+ \d{4}$/);
      }
      await presetEditor.getByRole("button", { name: "Save steps" }).click();
      await expect(page.getByText("Release steps saved.")).toBeVisible();
      await expect(page).toHaveURL(`/admin/posts/rel${tag}preset`);
      await expect(page.getByTestId("post-editor").getByTestId("release-preview")).toHaveText(/^Tier 3 at publishing, free on \d+ \w+ \d{4}$/);
      expect((await db.releaseStep.findMany({ where: { postId: `rel${tag}preset` } })).map((row) => row.audienceTierId)).toEqual([TIER_3, null]);

      await openLibrary(page);
      await expect(card(page, "scheduled", "admin-post-card").getByTestId("scheduled-badge")).toHaveText(/^Scheduled for \d+ \w+ \d{4}, \d\d:\d\d$/);
      const scheduled = await openEditor(page, "scheduled");
      await expect(scheduled.getByTestId("post-state")).toHaveText(/^Scheduled for /);
      await scheduled.getByLabel("Change the time (UTC)").fill("2031-06-01T18:30");
      await scheduled.getByRole("button", { name: "Schedule" }).click();
      await expect(page.getByText("Publication scheduled.")).toBeVisible();
      await expect(page.getByTestId("post-editor").getByTestId("post-state")).toHaveText("Scheduled for 1 Jun 2031, 18:30");
      await openLibrary(page);
      await expect(card(page, "scheduled", "admin-post-card").getByTestId("scheduled-badge")).toHaveText("Scheduled for 1 Jun 2031, 18:30");
    });

    test("Publish now: the editor says Published at once, and still after a reload", async ({ page }) => {
      const id = await post(javaScriptEnabled ? "publishjs" : "publish", { publishAt: new Date(Date.now() + 3 * DAY) });
      // With its file: a post without one reads "Draft" once published.
      await db.post.update({ where: { id }, data: { fileName: "publish.zip", fileSize: 10n, driveFileId: `posts/${id}/publish.zip` } });
      await loginAs(page, adminId);
      await page.goto(`/admin/posts/${id}`);
      const editor = page.getByTestId("post-editor");
      await expect(editor.getByTestId("post-state")).toHaveText(/^Scheduled for /);
      await editor.getByRole("button", { name: "Publish now" }).click();
      await expect(page.getByTestId("post-editor").getByTestId("post-state")).toHaveText("Published");
      await expect(page.getByTestId("release-publication")).toHaveText("Published.");
      await page.reload();
      await expect(page.getByTestId("post-editor").getByTestId("post-state")).toHaveText("Published");
    });
  });
}

for (const javaScriptEnabled of [false, true]) {
  test(`the release editor ${javaScriptEnabled ? "with" : "without"} JavaScript: Add step and Remove keep what was typed, a 3-step cascade saved at once, the ladder previewed`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const suffix = javaScriptEnabled ? "editorjs" : "editor";
    const id = await post(suffix);
    await loginAs(page, adminId);
    await openEditor(page, suffix);
    const editor = () => page.getByTestId("post-editor");
    // Only the current paid tiers are offered (no legacy tier).
    await expect(editor().getByTestId("release-step-row")).toHaveCount(0);
    await editor().getByRole("button", { name: "Add step" }).click();
    await expect(editor().getByTestId("release-step-row")).toHaveCount(1);
    const options = await editor().getByLabel("Step 1: opens to").locator("option").allTextContents();
    expect(options.filter((text) => /legacy/i.test(text))).toEqual([]);
    await editor().getByLabel("Step 1: opens to").selectOption({ label: "Tier 2 and above" });
    await editor().getByLabel("Days after publication").first().fill("3");
    await editor().getByRole("button", { name: "Add step" }).click();
    await editor().getByLabel("Step 2: opens to").selectOption({ label: "Tier 1 and above" });
    await editor().getByLabel("Days after publication").nth(1).fill("9");
    await editor().getByRole("button", { name: "Add step" }).click();
    await editor().getByLabel("Step 3: opens to").selectOption({ label: "Everyone (free)" });
    await editor().getByLabel("Days after publication").nth(2).fill("30");
    // A fourth row, removed again: the three typed rows stay.
    await editor().getByRole("button", { name: "Add step" }).click();
    await expect(editor().getByTestId("release-step-row")).toHaveCount(4);
    await editor().getByRole("button", { name: "Remove step 4" }).click();
    await expect(editor().getByTestId("release-step-row")).toHaveCount(3);
    await expect(editor().getByLabel("Step 2: opens to")).toHaveValue(TIER_1);
    await expect(editor().getByLabel("Days after publication").nth(1)).toHaveValue("9");
    await expect(editor().getByTestId("release-step-when").first()).toHaveText(/^Opens \d+ \w+ \d{4}, \d\d:\d\d \(UTC\)$/);
    if (javaScriptEnabled) {
      // The live preview is the cards' ladder, before anything is saved.
      await expect(editor().getByTestId("release-preview-ladder")).toHaveText(
        /^Tier 3 now · Tier 2 on \d+ \w+ \d{4} · Tier 1 on \d+ \w+ \d{4} · Free on \d+ \w+ \d{4}$/,
      );
    }
    await editor().getByRole("button", { name: "Save steps" }).click();
    await expect(page.getByText("Release steps saved.")).toBeVisible();
    expect((await db.releaseStep.findMany({ where: { postId: id }, orderBy: { position: "asc" } })).map((row) => [row.audienceTierId, row.afterDays])).toEqual([
      [TIER_2, 3],
      [TIER_1, 9],
      [null, 30],
    ]);
    await context.close();
  });
}

test("a step that opens while the member reads shows on their next view, with no write", async ({ page }) => {
  const id = await post("soon");
  await step(id, 0, TIER_1, [TIER_1, TIER_2, TIER_3], new Date(Date.now() + 4000));
  await loginAs(page, tier1Id);
  await openLibrary(page);
  const soon = card(page, "soon");
  await expect(soon.getByTestId("release-upcoming")).toHaveText(/^Opens to your Tier 1 on \d+ \w+ \d{4} \(in 1 minute\)$/);
  await expect(soon.getByRole("button", { name: /^Download/ })).toHaveCount(0);
  await page.waitForTimeout(4500);
  await page.reload();
  await expect(card(page, "soon").getByRole("button", { name: /^Download/ })).toBeVisible();
  await expect(card(page, "soon").getByTestId("access-reason")).toHaveText(/Released to Tier 1 on \d+ \w+ \d{4}$/);
});

test.describe("voter-linked releases", () => {
  test.use({ javaScriptEnabled: false });

  test("the demo's shipped idea: 'Inspired by your vote' for its voter, a count for others, listed on the vote page", async ({ page }) => {
    const supporter = await db.user.findUniqueOrThrow({ where: { email: "supporter@example.com" } });
    await page
      .context()
      .addCookies([{ name: "nsfwAccepted", value: encodeURIComponent(Buffer.from(JSON.stringify(true)).toString("base64")), url: process.env.APP_URL! }]);
    await page.goto("/library?search=Midnight%20Observatory");
    const observatory = page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: "Midnight Observatory" }) });
    await expect(observatory.getByTestId("post-inspired")).toHaveText(/^Inspired by \d+ voters$/);
    await expect(observatory.getByTestId("release-upcoming")).toHaveText(/^Free for everyone on \d+ \w+ \d{4} \(in 55 days\)$/);
    await loginAs(page, supporter.id);
    await page.goto("/library?search=Midnight%20Observatory");
    await expect(observatory.getByTestId("post-inspired")).toHaveText("Inspired by your vote");
    await expect(observatory.getByTestId("release-upcoming")).toHaveText(/^Opens to your Tier 2 on \d+ \w+ \d{4} \(in 2 days\)$/);
    await page.goto("/inspiration-vote");
    const shipped = page.getByTestId("shipped-ideas");
    // A shipped idea links to its post's own page, and has left the live round (no Like).
    const post = await db.post.findFirstOrThrow({ where: { title: "Midnight Observatory" }, select: { id: true } });
    await expect(shipped.getByRole("link", { name: "Midnight Observatory" })).toHaveAttribute("href", `/library/${post.id}`);
  });
});

for (const javaScriptEnabled of [false, true]) {
  test.describe(`voter access ${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("an admin links an idea to its post, giving its voters the first release's access", async ({ page }) => {
      const suffix = javaScriptEnabled ? "voted1" : "voted0";
      const ideaTitle = `Idea ${tag} ${suffix}`;
      const panel = await db.inspirationPanel.create({ data: { imageUrl: "/media/none.jpg", title: ideaTitle } });
      const target = await post(suffix);
      // A Tier 1 member voted for it; the post is for Tier 3.
      await db.inspirationLike.create({ data: { userId: tier1Id, panelId: panel.id, kind: "LIKE" } });
      await loginAs(page, adminId);
      await page.goto("/inspiration-vote");
      const idea = page.getByTestId("inspiration-panel").filter({ has: page.getByRole("heading", { name: ideaTitle }) });
      await idea.getByLabel("Realized by post (ID or title)").fill(target);
      await idea.getByLabel("Voters get the first step’s access whatever their tier").check();
      await idea.getByRole("button", { name: "Link to post" }).click();
      await expect(page.getByText("Idea linked to its post.")).toBeVisible();
      await expect(idea).toContainText(`Shipped as Release ${tag} ${suffix} (1 voter)`);
      await expect(idea.getByLabel("Voters get the first step’s access whatever their tier")).toBeChecked();
      expect(await db.inspirationPanel.findUniqueOrThrow({ where: { id: panel.id } })).toMatchObject({ postId: target, votersGetAccess: true });

      await loginAs(page, tier1Id);
      await openLibrary(page);
      await expect(card(page, suffix).getByTestId("post-inspired")).toHaveText("Inspired by your vote");
      await expect(card(page, suffix).getByTestId("access-reason")).toHaveText(/Yours as a voter since \d+ \w+ \d{4}$/);
      await expect(card(page, suffix).getByRole("button", { name: /^Download/ })).toBeVisible();

      // Switched off: the voter keeps the credit, not the access.
      await loginAs(page, adminId);
      await page.goto("/inspiration-vote");
      await idea.getByLabel("Voters get the first step’s access whatever their tier").uncheck();
      await idea.getByRole("button", { name: "Save voter access" }).click();
      await expect(page.getByText("Voters no longer get access of their own.")).toBeVisible();
      await loginAs(page, tier1Id);
      await openLibrary(page);
      await expect(card(page, suffix).getByTestId("post-inspired")).toHaveText("Inspired by your vote");
      await expect(card(page, suffix).getByRole("button", { name: /^Download/ })).toHaveCount(0);
      await db.inspirationPanel.delete({ where: { id: panel.id } });
    });
  });
}
