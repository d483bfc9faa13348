// The /admin page's loader and action (the no-JavaScript paths) against a real database.
import { db } from "~/db.server";
import * as adminRoute from "~/routes/admin";
import * as libraryRoute from "~/routes/library";
import { formFieldsOf, requestDocument } from "./documents";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

type Json = Record<string, unknown>;

let adminId: string;
let adminCookie: string;

beforeAll(async () => {
  // Migration 0030 holds Tier 2 (paid, voting) already.
  expect(await db.tier.findUnique({ where: { id: "8825009" } })).toMatchObject({ title: "Tier 2", isPaid: true });
  await db.post.createMany({
    data: [
      { id: "p-ship", title: "Pirate Ship", paidContent: true },
      { id: "p-house", title: "Tiny House", paidContent: true },
    ],
  });
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, fullName: "Page Admin" });
  adminId = admin.id;
  adminCookie = await sessionCookie(admin.id);
});

describe("/admin loader", () => {
  it("redirects guests and non-admins to /", async () => {
    const guest = await callRoute(adminRoute, { path: "/admin" });
    expect(guest.status).toBe(302);
    expect(guest.headers.get("Location")).toBe("/");
    const fan = await createTestUser();
    const refused = await callRoute(adminRoute, { path: "/admin", cookie: await sessionCookie(fan.id) });
    expect(refused.status).toBe(302);
    expect(refused.headers.get("Location")).toBe("/");
    const post = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { intent: "search-by-code", code: "1", keyword: "x" },
      cookie: await sessionCookie(fan.id),
    });
    expect(post.status).toBe(302);
    expect(post.headers.get("Location")).toBe("/");
  });

  it("lists users by search and opens one in the editor with posts and tiers", async () => {
    const target = await createTestUser({ fullName: "Marta Editable", email: "marta@example.net" });
    const response = await callRoute(adminRoute, { path: `/admin?search=marta&user=${target.id}`, cookie: adminCookie });
    expect(response.status).toBe(200);
    const data = await readJsonBody<{ list: { users: Json[]; total: number }; editing: { user: Json; posts: Json[]; tiers: Json[] } }>(response);
    expect(data.list.total).toBe(1);
    expect(data.list.users[0]).toMatchObject({ _id: target.id, fullName: "Marta Editable" });
    expect(data.editing.user).toMatchObject({ _id: target.id, unlocked_content: [] });
    expect(data.editing.posts.map((post) => post.title)).toEqual(["Pirate Ship", "Tiny House"]);
    // Every tier the site knows (migration 0030 holds the product's nine), for the tier picker.
    expect(data.editing.tiers.map((tier) => tier.title)).toContain("Tier 2");
    expect(data.editing.tiers).toHaveLength(await db.tier.count());

    const missing = await callRoute(adminRoute, { path: `/admin?user=nobody`, cookie: adminCookie });
    expect((await readJsonBody<{ editing: Json }>(missing)).editing).toEqual({ notFound: true });
  });
});

describe("/admin action without JavaScript", () => {
  it("saves the editor's form, closes the editor and records the change in the audit log shown on the page", async () => {
    const target = await createTestUser({ fullName: "Form Person", restricted: false });
    // A browser posts this form urlencoded, with one unlocked_content entry per checked box.
    const form = new URLSearchParams();
    form.set("intent", "save-user");
    form.set("userId", target.id);
    form.set("fullName", "Form Person Renamed");
    form.set("email", target.email!);
    form.set("current_tier", "8825009");
    form.set("restricted", "true");
    form.append("unlocked_content", "p-ship");
    form.append("unlocked_content", "p-house");
    const response = await callRoute(adminRoute, {
      method: "POST",
      path: `/admin?search=form&user=${target.id}`,
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      cookie: adminCookie,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/admin?search=form");
    expect(response.headers.get("Set-Cookie")).toContain("toast-session");

    const saved = await db.user.findUniqueOrThrow({ where: { id: target.id }, include: { unlockedContent: true } });
    expect(saved).toMatchObject({ fullName: "Form Person Renamed", restricted: true, currentTierId: "8825009", isAdmin: false, canBeAdmin: false });
    expect(saved.unlockedContent.map((unlock) => unlock.postId).sort()).toEqual(["p-house", "p-ship"]);

    const page = await readJsonBody<{ audit: { rows: Json[] } }>(await callRoute(adminRoute, { path: "/admin", cookie: adminCookie }));
    expect(page.audit.rows[0]).toMatchObject({
      actor: "Page Admin",
      action: "user.update",
      targetType: "user",
      targetId: target.id,
      targetLabel: target.email,
    });
    // What changed, field by field, before -> after.
    expect(page.audit.rows[0]!.changes).toEqual(
      expect.arrayContaining([
        { field: "fullName", before: "Form Person", after: "Form Person Renamed" },
        { field: "restricted", before: false, after: true },
        { field: "current_tier", before: null, after: "8825009" },
        { field: "unlocked_content", before: [], after: ["p-house", "p-ship"] },
      ]),
    );
  });

  it("adds a shop email as unverified and marks it verified, each audited", async () => {
    const target = await createTestUser();
    const base = { userId: target.id, fullName: "x", email: target.email! };
    const empty = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { ...base, intent: "add-shop-email", newShopEmail: " " },
      cookie: adminCookie,
    });
    expect(empty.status).toBe(400);
    expect(await readJsonBody(empty)).toEqual({ intent: "add-shop-email", error: "Ko-fi email cannot be empty." });
    const invalid = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { ...base, intent: "add-shop-email", newShopEmail: "nope@" },
      cookie: adminCookie,
    });
    expect(await readJsonBody(invalid)).toEqual({ intent: "add-shop-email", error: "Invalid email format." });

    const added = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { ...base, intent: "add-shop-email", newShopEmail: "Buyer@Shop.example" },
      cookie: adminCookie,
    });
    // The editor is drawn again with the rest of the form as posted (unsaved).
    expect(added.status).toBe(200);
    expect(await readJsonBody(added)).toMatchObject({ intent: "add-shop-email", message: "Ko-fi email added as unverified.", posted: { fullName: "x" } });
    let shopEmail = await db.shopEmail.findFirstOrThrow({ where: { userId: target.id } });
    expect(shopEmail).toMatchObject({ email: "Buyer@Shop.example", verifiedEmail: null, verifiedAt: null });
    // The fullName field of the same form is not saved by this button.
    expect((await db.user.findUniqueOrThrow({ where: { id: target.id } })).fullName).not.toBe("x");

    const verified = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { ...base, verifyShopEmail: "Buyer@Shop.example" },
      cookie: adminCookie,
    });
    expect(verified.status).toBe(200);
    shopEmail = await db.shopEmail.findFirstOrThrow({ where: { userId: target.id } });
    expect(shopEmail.verifiedEmail).toBe("Buyer@Shop.example");
    expect(shopEmail.verifiedAt).not.toBeNull();

    const entries = await db.auditEntry.findMany({ where: { targetId: target.id }, orderBy: { createdAt: "asc" } });
    expect(entries.map((entry) => [entry.action, entry.actorId])).toEqual([
      ["user.shop_email.add", adminId],
      ["user.shop_email.verify", adminId],
    ]);
    expect(entries[1]!.after).toEqual({ kofiEmails: [{ email: "Buyer@Shop.example", emailVerified: true }] });
  });

  it("removes a shop email, verified or not, audited; it then unlocks nothing for the user", async () => {
    const target = await createTestUser({ fullName: "Mistyped Buyer" });
    await db.post.create({ data: { id: "p-shop-only", title: "Shop Only Hut", paidContent: true, kofiId: "hut-1" } });
    await db.purchase.create({
      data: { email: "someone-else@shop.example", kofiItemCode: "hut-1", transactionId: "tx-hut-1", source: "ADMIN", purchasedAt: new Date() },
    });
    await db.shopEmail.createMany({
      data: [
        { userId: target.id, email: "someone-else@shop.example", verifiedEmail: "someone-else@shop.example", verifiedAt: new Date() },
        { userId: target.id, email: "typo@shop.example" },
      ],
    });
    const unlocked = async () => {
      const page = await callRoute(libraryRoute, { path: "/library?search=Shop%20Only%20Hut", cookie: await sessionCookie(target.id) });
      return (await readJsonBody<{ posts: { postId: string; unlocked: boolean }[] }>(page)).posts.find((post) => post.postId === "p-shop-only")?.unlocked;
    };
    expect(await unlocked()).toBe(true);

    // Not an admin: sent away, nothing removed.
    const fan = await createTestUser();
    const refused = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { userId: target.id, removeShopEmail: "someone-else@shop.example" },
      cookie: await sessionCookie(fan.id),
    });
    expect(refused.status).toBe(302);
    expect(refused.headers.get("Location")).toBe("/");
    expect(await db.shopEmail.count({ where: { userId: target.id } })).toBe(2);

    // The editor's Remove without JavaScript: a submit button named for its email (any case).
    const removed = await callRoute(adminRoute, {
      method: "POST",
      path: `/admin?user=${target.id}`,
      form: { userId: target.id, fullName: "Mistyped Buyer", email: target.email!, removeShopEmail: "SOMEONE-ELSE@shop.example" },
      cookie: adminCookie,
    });
    expect(removed.status).toBe(200);
    expect(await readJsonBody(removed)).toMatchObject({ intent: "remove-shop-email", message: "Ko-fi email removed." });
    expect((await db.shopEmail.findMany({ where: { userId: target.id } })).map((row) => row.email)).toEqual(["typo@shop.example"]);
    expect(await unlocked()).toBe(false);
    const entry = await db.auditEntry.findFirstOrThrow({ where: { targetId: target.id, action: "user.shop_email.remove" } });
    expect(entry.actorId).toBe(adminId);
    expect(entry.before).toEqual({
      kofiEmails: [
        { email: "someone-else@shop.example", emailVerified: true },
        { email: "typo@shop.example", emailVerified: false },
      ],
    });
    expect(entry.after).toEqual({ kofiEmails: [{ email: "typo@shop.example", emailVerified: false }] });

    // With JavaScript, Remove takes it out of the draft and Save sends it as kofiEmailRemoved.
    const form = new URLSearchParams({
      intent: "save-user",
      userId: target.id,
      fullName: "Mistyped Buyer",
      email: target.email!,
      kofiEmailRemoved: "typo@shop.example",
    });
    const saved = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      cookie: adminCookie,
    });
    expect(saved.status).toBe(302);
    expect(await db.shopEmail.count({ where: { userId: target.id } })).toBe(0);
    expect(await db.auditEntry.findFirstOrThrow({ where: { targetId: target.id, action: "user.update" } })).toMatchObject({
      before: { kofiEmails: [{ email: "typo@shop.example", emailVerified: false }] },
      after: { kofiEmails: [] },
    });
  });

  it("without JavaScript, a shop email's Add keeps what the admin typed elsewhere in the editor, unsaved", async () => {
    const target = await createTestUser({ fullName: "Typing Person" });
    const html = await (await requestDocument({ path: `/admin?user=${target.id}`, cookie: adminCookie })).text();
    const form = formFieldsOf(html, { userId: target.id });
    form.set("fullName", "Typed But Not Saved");
    form.append("unlocked_content", "p-ship");
    form.set("newShopEmail", "new-buyer@shop.example");
    form.set("intent", "add-shop-email");
    const response = await requestDocument({
      method: "POST",
      path: `/admin?user=${target.id}`,
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      cookie: adminCookie,
    });
    expect(response.status).toBe(200);
    const page = await response.text();
    // The email was added...
    expect(page).toContain("Ko-fi email added as unverified.");
    expect(await db.shopEmail.count({ where: { userId: target.id, email: "new-buyer@shop.example" } })).toBe(1);
    // ...and the editor shows the typed name and the picked post again, as unsaved changes.
    const again = formFieldsOf(page, { userId: target.id });
    expect(again.get("fullName")).toBe("Typed But Not Saved");
    expect(again.getAll("unlocked_content")).toEqual(["p-ship"]);
    expect(again.getAll("kofiEmail")).toEqual(["new-buyer@shop.example"]);
    expect(page).toContain("Unsaved changes");
    const row = await db.user.findUniqueOrThrow({ where: { id: target.id }, include: { unlockedContent: true } });
    expect(row.fullName).toBe("Typing Person");
    expect(row.unlockedContent).toEqual([]);
  });

  it("answers 'No user selected' when the form names no user", async () => {
    const response = await callRoute(adminRoute, { method: "POST", path: "/admin", form: { intent: "save-user" }, cookie: adminCookie });
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual({ intent: "save-user", error: "No user selected" });
  });

  it("runs the code search from a plain form", async () => {
    const leaker = await createTestUser({ fullName: "Form Leaker" });
    await db.download.create({ data: { userId: leaker.id, postId: "p-ship", version: "V1.0" } });
    const missing = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { intent: "search-by-code", code: "", keyword: "ship" },
      cookie: adminCookie,
    });
    expect(missing.status).toBe(400);
    expect(await readJsonBody(missing)).toMatchObject({ error: "Please enter both code and keyword" });
    const found = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      form: { intent: "search-by-code", code: String(leaker.number), keyword: "SHIP" },
      cookie: adminCookie,
    });
    expect(found.status).toBe(200);
    expect(await readJsonBody(found)).toMatchObject({
      intent: "search-by-code",
      result: {
        number: leaker.number,
        user: { id: leaker.id, email: leaker.email, username: "Form Leaker" },
        downloads: [{ postId: "p-ship", postTitle: "Pirate Ship", username: "Form Leaker", version: "V1.0" }],
      },
    });
  });

  it("imports a CSV from a plain multipart form and refuses a missing or non-CSV file", async () => {
    const none = new FormData();
    none.set("intent", "import-purchases");
    const noFile = await callRoute(adminRoute, { method: "POST", path: "/admin", form: none, cookie: adminCookie });
    expect(await readJsonBody(noFile)).toEqual({ intent: "import-purchases", error: "Please select a file first." });

    const text = new FormData();
    text.set("file", new File(["hello"], "notes.txt", { type: "text/plain" }));
    const wrongType = await callRoute(adminRoute, { method: "POST", path: "/admin", form: text, cookie: adminCookie });
    expect(wrongType.status).toBe(400);
    expect(await readJsonBody(wrongType)).toEqual({ intent: "import-purchases", error: "Please select a .csv file." });
  });

  it("unlocks objects for a user (audited) and refuses a form without a user", async () => {
    const target = await createTestUser();
    const response = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin?search=x",
      form: { intent: "unlock-objects", userId: target.id },
      cookie: adminCookie,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/admin?search=x&user=${target.id}`);
    const entry = await db.auditEntry.findFirstOrThrow({ where: { targetId: target.id, action: "unlocks.recompute" } });
    expect(entry.actorId).toBe(adminId);

    const none = await callRoute(adminRoute, { method: "POST", path: "/admin", form: { intent: "unlock-objects" }, cookie: adminCookie });
    expect(none.status).toBe(400);
    expect(await readJsonBody(none)).toEqual({ intent: "unlock-objects", error: "No user selected" });
  });

  it("forces the interval job and reports the failure in the spec's words when the platform is not configured", async () => {
    // The job logs its failure; this is the file's last test, so the allowance ends with it.
    (globalThis as { __allowConsoleError?: boolean }).__allowConsoleError = true;
    {
      const response = await callRoute(adminRoute, { method: "POST", path: "/admin", form: { intent: "force-interval" }, cookie: adminCookie });
      expect(response.status).toBe(502);
      expect(await readJsonBody(response)).toMatchObject({ intent: "force-interval", error: "Error forcing interval.", summary: { status: "failed" } });
      const page = await readJsonBody<{ runs: Json[]; audit: { rows: Json[] } }>(await callRoute(adminRoute, { path: "/admin", cookie: adminCookie }));
      expect(page.runs[0]).toMatchObject({ trigger: "admin", status: "failed" });
      expect(page.audit.rows[0]).toMatchObject({ action: "interval.force", actor: "Page Admin" });
    }
  });
});
