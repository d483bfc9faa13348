import { db, expect, loginAs, test } from "./fixtures";

// Script and console errors in the page fail a test: the failOnPageErrors fixture (fixtures.ts).
const DAY = 24 * 60 * 60 * 1000;

async function createVoter(extra: { patreonId?: string } = {}) {
  return db.user.create({
    data: {
      email: `voter-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
      fullName: "E2E Voter",
      mailVerified: true,
      currentTierId: "8825009",
      ...extra,
    },
  });
}

test.afterEach(async () => {
  // Back to the demo state for the next test.
  await db.inspirationConfig.update({ where: { id: 1 }, data: { mode: "NORMAL", votingOpen: true, votingEndTime: new Date(Date.now() + 7 * DAY) } });
});

test("a voting-tier user likes and unlikes a panel", async ({ page }) => {
  const voter = await createVoter();
  await loginAs(page, voter.id);
  await page.goto("/inspiration-vote");
  await expect(page.getByTestId("voting-status")).toHaveText("Voting is open");
  const card = page.getByTestId("inspiration-panel").filter({ hasText: "Idea #2" });
  const before = Number(
    await card
      .getByTestId("like-count")
      .innerText()
      .then((text) => text.replace(/\D/g, "")),
  );

  await card.getByRole("button", { name: "Like: Idea #2", exact: true }).click();
  await expect(card.getByRole("button", { name: "Unlike: Idea #2", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(card.getByTestId("like-count")).toContainText(String(before + 1));
  await expect.poll(() => db.inspirationLike.count({ where: { userId: voter.id } })).toBe(1);

  await page.reload();
  await card.getByRole("button", { name: "Unlike: Idea #2", exact: true }).click();
  await expect(card.getByRole("button", { name: "Like: Idea #2", exact: true })).toHaveAttribute("aria-pressed", "false");
  await expect(card.getByTestId("like-count")).toContainText(String(before));
  await expect.poll(() => db.inspirationLike.count({ where: { userId: voter.id } })).toBe(0);
});

test("a linked member gives a Patreon like as a second vote; others do not get the button", async ({ page }) => {
  const member = await createVoter({ patreonId: `e2e-patron-${Date.now()}` });
  await loginAs(page, member.id);
  await page.goto("/inspiration-vote");
  const card = page.getByTestId("inspiration-panel").filter({ hasText: "Idea #5" });
  const count = async () => Number((await card.getByTestId("like-count").innerText()).replace(/\D/g, ""));
  const before = await count();
  await card.getByRole("button", { name: "Like: Idea #5", exact: true }).click();
  await expect(card.getByRole("button", { name: "Unlike: Idea #5", exact: true })).toBeVisible();
  await card.getByRole("button", { name: "Patreon Like: Idea #5", exact: true }).click();
  await expect(card.getByRole("button", { name: "Remove Patreon Like: Idea #5", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect.poll(count).toBe(before + 2);
  await expect.poll(() => db.inspirationLike.count({ where: { userId: member.id } })).toBe(2);

  const voter = await createVoter();
  await page.context().clearCookies();
  await loginAs(page, voter.id);
  await page.reload();
  await expect(page.getByRole("button", { name: /Patreon Like/ })).toHaveCount(0);
});

test("a guest who tries to like is told to log in", async ({ page }) => {
  await page.goto("/inspiration-vote");
  await page.getByTestId("inspiration-panel").first().getByRole("button", { name: /^Like/ }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "You must be logged in to like an inspiration." })).toBeVisible();
});

test("the countdown ticks every second, then shows that voting has ended and closes voting", async ({ page }) => {
  // The end is 45 s away, and the page's clock moves only when the test moves it: however long
  // a loaded machine takes to load the page, the countdown is still running and ticks exactly.
  const endTime = new Date(Date.now() + 45_000);
  await db.inspirationConfig.update({ where: { id: 1 }, data: { votingOpen: true, votingEndTime: endTime } });
  const voter = await createVoter();
  await loginAs(page, voter.id);
  await page.clock.install();
  await page.goto("/inspiration-vote");
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
  const seconds = page.getByTestId("countdown").locator('[data-unit="seconds"] .countdown-value');
  await expect(seconds).toBeVisible();
  const first = Number(await seconds.innerText());
  expect(first).toBeGreaterThan(1);
  await page.clock.runFor(1000);
  await expect(seconds).toHaveText(String(first - 1).padStart(2, "0"));
  await page.clock.runFor(first * 1000);
  await expect(page.getByTestId("countdown")).toHaveText("Voting has ended.");
  await expect(page.getByTestId("voting-status")).toHaveText("Voting is closed");
  await expect(page.getByTestId("inspiration-panel").first().getByRole("button", { name: /^Like/ })).toBeDisabled();
  // The server agrees: a like after the end time is refused although the flag is still on (the
  // end time is moved into the past rather than waited for).
  await db.inspirationConfig.update({ where: { id: 1 }, data: { votingEndTime: new Date(Date.now() - 1000) } });
  const panel = await db.inspirationPanel.findFirstOrThrow();
  const response = await page.request.post(`/api/inspiration/panels/${panel.id}/like`, { data: { like: true } });
  expect(response.status()).toBe(403);
  expect(await response.json()).toEqual({ error: "Voting is closed. You cannot like or unlike panels." });
});

test("randomized mode hides the counts as ? and ?+1", async ({ page }) => {
  const voter = await createVoter();
  const liked = await db.inspirationPanel.findFirstOrThrow({ where: { title: "Idea #4" } });
  await db.inspirationLike.create({ data: { userId: voter.id, panelId: liked.id, kind: "LIKE" } });
  await db.inspirationConfig.update({ where: { id: 1 }, data: { mode: "RANDOMIZED" } });
  await loginAs(page, voter.id);
  await page.goto("/inspiration-vote");
  await expect(page.getByTestId("inspiration-panel").filter({ hasText: "Idea #4" }).getByTestId("like-count")).toHaveText(/(^|\s)\?\+1$/);
  await expect(page.getByTestId("inspiration-panel").filter({ hasText: "Idea #3" }).getByTestId("like-count")).toHaveText(/(^|\s)\?$/);
  // Liking another panel shows ?+1 there too, never a number.
  const third = page.getByTestId("inspiration-panel").filter({ hasText: "Idea #3" });
  await third.getByRole("button", { name: "Like: Idea #3", exact: true }).click();
  await expect(third.getByTestId("like-count")).toHaveText(/(^|\s)\?\+1$/);
});

test("an admin edits the vote settings, adds and deletes a panel, and resets likes", async ({ page }) => {
  const admin = await db.user.create({ data: { email: `insp-admin-${Date.now()}@example.com`, fullName: "Insp Admin", isAdmin: true, mailVerified: true } });
  const voter = await createVoter();
  const anyPanel = await db.inspirationPanel.findFirstOrThrow();
  await db.inspirationLike.create({ data: { userId: voter.id, panelId: anyPanel.id, kind: "LIKE" } });
  await loginAs(page, admin.id);
  await page.goto("/inspiration-vote");

  const settings = page.getByRole("form", { name: "Vote settings" });
  await settings.getByLabel("Title").fill("Summer Vote");
  await settings.getByLabel("Mode").selectOption("randomized");
  await settings.getByRole("button", { name: "Save Settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Summer Vote" })).toBeVisible();
  await expect.poll(async () => (await db.inspirationConfig.findUniqueOrThrow({ where: { id: 1 } })).mode).toBe("RANDOMIZED");

  const create = page.getByRole("form", { name: "New inspiration panel" });
  await create.getByRole("button", { name: "Create Panel" }).click();
  // Shown once, next to the form (the toast with the same text is dropped).
  await expect(create.getByRole("alert").filter({ hasText: "Image URL is required." })).toBeVisible();
  await create.getByLabel("Image URL").fill("/media/inspiration/demo-1.jpg");
  await create.getByLabel("Title (optional)").fill("E2E Idea");
  await create.getByRole("button", { name: "Create Panel" }).click();
  await expect(page.getByTestId("inspiration-panel").filter({ hasText: "E2E Idea" })).toBeVisible();
  await page.getByRole("link", { name: "Edit E2E Idea" }).click();
  const editing = page.getByTestId("inspiration-panel").filter({ has: page.getByRole("button", { name: "Save Changes" }) });
  await editing.getByLabel("Title").fill("E2E Idea Edited");
  await editing.getByRole("button", { name: "Save Changes" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel updated." })).toBeVisible();
  const card = page.getByTestId("inspiration-panel").filter({ hasText: "E2E Idea Edited" });
  await expect(card).toBeVisible();
  await card.getByRole("link", { name: "Delete E2E Idea Edited" }).click();
  await page.getByRole("dialog", { name: "Delete panel" }).getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("inspiration-panel").filter({ hasText: "E2E Idea" })).toHaveCount(0);

  await page.getByRole("link", { name: "Reset Likes" }).click();
  const dialog = page.getByRole("dialog", { name: "Reset likes" });
  await expect(dialog).toContainText("Are you sure");
  await dialog.getByRole("button", { name: "Reset Likes" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Likes reset." })).toBeVisible();
  expect(await db.inspirationLike.count()).toBe(0);
  await db.inspirationConfig.update({ where: { id: 1 }, data: { title: "Inspiration Vote" } });
});

test("a card says its title once, and a broken image shows a placeholder instead of its alt text", async ({ page }) => {
  const broken = await db.inspirationPanel.create({ data: { imageUrl: "/media/inspiration/no-such-image.jpg", title: "E2E Broken Image" } });
  try {
    await page.goto("/inspiration-vote");
    const first = page.getByTestId("inspiration-panel").filter({ hasText: "Idea #4" });
    await expect(first.getByRole("heading", { name: "Idea #4" })).toBeVisible();
    // The heading names the card; the image does not repeat it.
    await expect(first.getByRole("img", { name: "Idea #4" })).toHaveCount(0);
    const card = page.getByTestId("inspiration-panel").filter({ hasText: "E2E Broken Image" });
    await expect(card.getByText("Image not available")).toBeVisible();
    await expect(card.locator("img")).toHaveCount(0);
  } finally {
    await db.inspirationPanel.delete({ where: { id: broken.id } });
  }
});

test("after an inspiration panel is created the New panel form is empty again", async ({ page }) => {
  const admin = await db.user.create({
    data: { email: `insp-admin-${Date.now()}-new@example.com`, fullName: "Insp Admin", isAdmin: true, mailVerified: true },
  });
  await loginAs(page, admin.id);
  await page.goto("/inspiration-vote");
  const create = page.getByRole("form", { name: "New inspiration panel" });
  // A refused create keeps what was typed; only a saved one empties the form.
  await create.getByLabel("Title (optional)").fill("E2E Only Once");
  await create.getByRole("button", { name: "Create Panel" }).click();
  // Shown once, next to the form (the toast with the same text is dropped).
  await expect(create.getByRole("alert").filter({ hasText: "Image URL is required." })).toBeVisible();
  await expect(create.getByLabel("Title (optional)")).toHaveValue("E2E Only Once");
  await create.getByLabel("Image URL").fill("/media/inspiration/demo-2.jpg");
  await create.getByRole("button", { name: "Create Panel" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Panel created." })).toBeVisible();
  await expect(page.getByTestId("inspiration-panel").filter({ hasText: "E2E Only Once" })).toHaveCount(1);
  await expect(create.getByLabel("Image URL")).toHaveValue("");
  await expect(create.getByLabel("Title (optional)")).toHaveValue("");
  expect(await db.inspirationPanel.count({ where: { title: "E2E Only Once" } })).toBe(1);
  await db.inspirationPanel.deleteMany({ where: { title: "E2E Only Once" } });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the admin forms keep what was typed when the server refuses it", async ({ page }) => {
    const admin = await db.user.create({
      data: { email: `insp-admin-${Date.now()}-nojs@example.com`, fullName: "Insp Admin", isAdmin: true, mailVerified: true },
    });
    await loginAs(page, admin.id);
    await page.goto("/inspiration-vote");

    const settings = page.getByRole("form", { name: "Vote settings" });
    await settings.getByLabel("Title").fill("   ");
    await settings.getByLabel("Mode").selectOption("randomized");
    await settings.getByLabel("Voting end time (UTC)").fill("2031-05-06T07:08");
    await settings.getByRole("button", { name: "Save Settings" }).click();
    await expect(settings.getByRole("alert")).toHaveText("Title is required.");
    await expect(settings.getByLabel("Mode")).toHaveValue("randomized");
    await expect(settings.getByLabel("Voting end time (UTC)")).toHaveValue("2031-05-06T07:08");
    expect((await db.inspirationConfig.findUniqueOrThrow({ where: { id: 1 } })).mode).toBe("NORMAL");

    const create = page.getByRole("form", { name: "New inspiration panel" });
    await create.getByLabel("Image URL").fill("ftp://example.com/idea.jpg");
    await create.getByLabel("Title (optional)").fill("Kept Idea");
    await create.getByRole("button", { name: "Create Panel" }).click();
    await expect(create.getByRole("alert")).toHaveText("Please enter a valid image URL (https://... or a path starting with /).");
    await expect(create.getByLabel("Image URL")).toHaveValue("ftp://example.com/idea.jpg");
    await expect(create.getByLabel("Title (optional)")).toHaveValue("Kept Idea");

    await page.getByRole("link", { name: "Edit Idea #4" }).click();
    const editing = page.getByTestId("inspiration-panel").filter({ has: page.getByRole("button", { name: "Save Changes" }) });
    await editing.getByLabel("Image URL").fill("ftp://example.com/edit.jpg");
    await editing.getByLabel("Title").fill("Idea #4 Renamed");
    await editing.getByRole("button", { name: "Save Changes" }).click();
    await expect(editing.getByRole("alert")).toHaveText("Please enter a valid image URL (https://... or a path starting with /).");
    await expect(editing.getByLabel("Image URL")).toHaveValue("ftp://example.com/edit.jpg");
    await expect(editing.getByLabel("Title")).toHaveValue("Idea #4 Renamed");
    expect(await db.inspirationPanel.count({ where: { title: "Idea #4 Renamed" } })).toBe(0);
  });

  test("a voting-tier user likes and unlikes with plain forms", async ({ page }) => {
    const voter = await createVoter();
    await loginAs(page, voter.id);
    await page.goto("/inspiration-vote");
    const card = page.getByTestId("inspiration-panel").filter({ hasText: "Idea #4" });
    await card.getByRole("button", { name: "Like: Idea #4", exact: true }).click();
    await expect(card.getByRole("button", { name: "Unlike: Idea #4", exact: true })).toBeVisible();
    expect(await db.inspirationLike.count({ where: { userId: voter.id } })).toBe(1);
    await card.getByRole("button", { name: "Unlike: Idea #4", exact: true }).click();
    await expect(card.getByRole("button", { name: "Like: Idea #4", exact: true })).toBeVisible();
    expect(await db.inspirationLike.count({ where: { userId: voter.id } })).toBe(0);
  });
});

for (const javaScriptEnabled of [true, false]) {
  test.describe(javaScriptEnabled ? "with JavaScript" : "without JavaScript, uploading", () => {
    test.use({ javaScriptEnabled });

    test("a new idea's image is uploaded with its form and shown from /media", async ({ page }) => {
      const admin = await db.user.create({
        data: { email: `insp-admin-${Date.now()}-upload-${javaScriptEnabled}@example.com`, fullName: "Insp Admin", isAdmin: true, mailVerified: true },
      });
      const title = `E2E Uploaded Idea ${javaScriptEnabled ? "js" : "plain"}`;
      try {
        await loginAs(page, admin.id);
        await page.goto("/inspiration-vote");
        const create = page.getByRole("form", { name: "New inspiration panel" });
        // A 2×2 PNG, made here so the spec carries no binary file.
        const png = Buffer.from(
          "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWMwTptpnDaTAUIBAB/uBMm6iK1UAAAAAElFTkSuQmCC",
          "base64",
        );
        await create.getByLabel("Image (png, jpg, jpeg)").setInputFiles({ name: "idea.png", mimeType: "image/png", buffer: png });
        await create.getByLabel("Title (optional)").fill(title);
        await create.getByRole("button", { name: "Create Panel" }).click();
        const card = page.getByTestId("inspiration-panel").filter({ hasText: title });
        await expect(card).toBeVisible();
        await expect(card.locator("img").first()).toHaveAttribute("src", /^\/media\/inspiration\/[0-9a-f]{16}\.jpg/);
        // The browser loaded it: the stored, re-encoded image is served.
        await card.locator("img").first().scrollIntoViewIfNeeded();
        await expect
          .poll(() =>
            card
              .locator("img")
              .first()
              .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
          )
          .toBe(true);
      } finally {
        await db.inspirationPanel.deleteMany({ where: { title } });
        await db.user.delete({ where: { id: admin.id } });
      }
    });
  });
}
