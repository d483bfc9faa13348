// "Download my data" and "Delete my account" against a database full of one person's rows: the
// export covers every table that references users (read from the foreign keys, so a new table
// cannot be forgotten), and after deletion no column of any table holds their email, name or
// provider ids; purchases and pledges stay, anonymised, and a later webhook recreates nothing.
import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.KOFI_VERIFICATION_TOKEN = "test-kofi-token";
});
import { db, queryRows } from "~/db.server";
import { EXPORT_SECTION_OF_TABLE, exportAccountData } from "~/models/account-data.server";
import { deleteOwnAccount } from "~/models/account-deletion.server";
import { checkAccess, describeLibraryCards, loadExplainedViewer } from "~/models/access.server";
import { loadViewerContext } from "~/models/entitlement.server";
import { recordAudit } from "~/models/audit.server";
import { LISTING_VIEWER, listLibraryPosts } from "~/models/library-listing.server";
import { enqueueMail } from "~/models/mail-outbox.server";
import { listTiers } from "~/models/tier.server";
import { formatDay } from "~/utils/dates";
import * as dataRoute from "~/routes/account.data";
import * as deleteRoute from "~/routes/account.delete";
import * as kofiWebhook from "~/routes/api.webhooks.kofi";
import { kofiPayload } from "./fakes/kofi";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();

/** Every (table, column) with a foreign key to users.id, from the catalog. */
async function userReferences() {
  return queryRows<{ table_name: string; column_name: string }>(
    `SELECT kcu.table_name::text AS table_name, kcu.column_name::text AS column_name
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public' AND ccu.table_name = 'users'`,
    [],
  );
}

/** Tables and columns whose text (any column, cast) contains the needle, case-insensitively. */
async function rowsContaining(needle: string): Promise<string[]> {
  const columns = await queryRows<{ table_name: string; column_name: string }>(
    `SELECT table_name::text AS table_name, column_name::text AS column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    [],
  );
  const hits: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [row] = await queryRows<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}"::text ILIKE $1`, [`%${needle}%`]);
    if (row!.n > 0) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}

async function personWithEverything(tag: string) {
  await createTiers();
  const user = await createTestUser({
    email: `${tag}@person.example`,
    fullName: `Person ${tag}`,
    patreonId: `pat-${tag}`,
    googleId: `goo-${tag}`,
    discordId: `dis-${tag}`,
    discordTag: `tag-${tag}`,
    currentTierId: TIER_2,
    tosAccepted: true,
  });
  const post = await createPost({ tiers: [TIER_2] });
  await sessionCookie(user.id);
  await db.apiToken.create({ data: { userId: user.id, tokenHash: `hash-${tag}`, label: "phone" } });
  await db.shopEmail.create({
    data: { userId: user.id, email: `${tag}-shop@buyer.example`, verifiedEmail: `${tag}-shop@buyer.example`, verifiedAt: new Date() },
  });
  await db.shopEmail.create({ data: { userId: user.id, email: `${tag}-pending@buyer.example` } });
  await db.purchase.create({
    data: { email: `${tag}-shop@buyer.example`, kofiItemCode: post.kofiId!, transactionId: `tx-${tag}`, source: "WEBHOOK", purchasedAt: new Date() },
  });
  await db.pledgeEvent.create({
    data: {
      id: `pledge_start:${tag}`,
      userId: user.id,
      type: "pledge_start",
      amountCents: 500,
      date: new Date("2026-01-02"),
      tierId: TIER_2,
      tierTitle: "Tier 2",
      paymentStatus: "Paid",
    },
  });
  await db.unlockedContent.create({ data: { userId: user.id, postId: post.id, source: "ADMIN" } });
  await db.download.create({ data: { userId: user.id, postId: post.id, version: "V1.0" } });
  // A player's answer on a game patch (docs/product.md#game-patches).
  const version = await db.postVersion.create({
    data: { postId: post.id, label: "V1.0", storageKey: `posts/${post.id}/v1.zip`, fileName: "v1.zip", size: 1n },
  });
  const patch = await db.gamePatch.create({ data: { name: `patch-${tag}`, currentSince: new Date() } });
  await db.patchConfirmation.create({ data: { userId: user.id, versionId: version.id, patchId: patch.id, verdict: "WORKS" } });
  await db.bugReport.create({ data: { postId: post.id, userId: user.id, versionLabel: "V1.0", title: `Bug by ${tag}`, body: "Something is wrong." } });
  const other = await createTestUser();
  const othersReport = await db.bugReport.create({
    data: { postId: post.id, userId: other.id, versionLabel: "V1.0", title: "Someone's bug", body: "Wrong too." },
  });
  await db.bugReportMeToo.create({ data: { reportId: othersReport.id, userId: user.id } });
  // A resumable upload the account (as an admin) started and has not completed.
  await db.uploadSession.create({
    data: {
      id: `upload-${tag}`,
      postId: post.id,
      adminId: user.id,
      fileName: "pack.zip",
      size: 1n,
      partSize: 8 * 1024 * 1024,
      driver: "local",
      storageKey: "unused",
    },
  });
  const panel = await db.inspirationPanel.create({ data: { imageUrl: "/x.jpg", title: "Idea" } });
  await db.inspirationLike.create({ data: { userId: user.id, panelId: panel.id, kind: "LIKE" } });
  await db.inspirationVoter.create({ data: { userId: user.id, panelId: panel.id } });
  await recordAudit({ actorId: user.id, action: "post.update", targetType: "post", targetId: post.id });
  await recordAudit({
    actorId: null,
    action: "user.update",
    targetType: "user",
    targetId: user.id,
    before: { email: user.email, fullName: user.fullName },
    after: { discordTag: `tag-${tag}` },
  });
  await db.rateLimit.create({ data: { key: `login:email:${tag}@person.example`, count: 1, resetAt: new Date(Date.now() + 60_000) } });
  await db.patreonMemberState.create({ data: { patreonUserId: `pat-${tag}`, stateAt: new Date(), active: true } });
  await db.updateSubscription.create({
    data: {
      userId: user.id,
      feedTokenHash: `hash-feed-${tag}`,
      feedTokenCreatedAt: new Date(),
      notifyNewPosts: true,
      newPostsSince: new Date(),
      unsubscribeToken: `unsub-${tag}`,
    },
  });
  await db.updateMailed.create({ data: { userId: user.id, kind: "NEW_POST", subjectId: post.id } });
  await enqueueMail(db, {
    key: `privacy:${tag}`,
    kind: "code",
    userId: user.id,
    mail: { to: `${tag}@person.example`, subject: "Your code", text: `code for ${tag}`, html: `<p>code for ${tag}</p>` },
  });
  return { user, post };
}

describe("Download my data", () => {
  it("has a section with every row of every table that references the user, and no secrets", async () => {
    const { user } = await personWithEverything("export");
    const data = (await exportAccountData(user.id)) as unknown as Record<string, unknown[]>;
    const references = await userReferences();
    expect(references.length).toBeGreaterThanOrEqual(8);
    for (const { table_name, column_name } of references) {
      const section = EXPORT_SECTION_OF_TABLE[table_name as keyof typeof EXPORT_SECTION_OF_TABLE];
      expect(section, `table ${table_name} references users but has no export section`).toBeDefined();
      const [row] = await queryRows<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}" = $1`, [user.id]);
      expect(row!.n, table_name).toBeGreaterThan(0);
      expect(data[section], table_name).toHaveLength(row!.n);
    }
    const text = JSON.stringify(data);
    for (const field of ["passwordHash", "tokenHash", "codeHash", "hash-export", "$2", "hash-feed-export", "unsub-export"]) expect(text).not.toContain(field);
    const [session] = await db.session.findMany({ where: { userId: user.id } });
    expect(text).not.toContain(session!.id);
    expect(text).toContain("export-shop@buyer.example");
    expect(text).toContain("pat-export");
  });

  it("never shows purchases of a linked but unverified email: not in the export, not on a card; admins see the near miss", async () => {
    const { user, post } = await personWithEverything("unproven");
    await db.purchase.create({
      data: { email: "unproven-pending@buyer.example", kofiItemCode: "SOMEONE-ELSES", transactionId: "tx-someone", source: "WEBHOOK", purchasedAt: new Date() },
    });
    const locked = await createPost({ tiers: [], kofiId: "SOMEONE-ELSES" });
    const text = JSON.stringify(await exportAccountData(user.id));
    expect(text).not.toContain("tx-someone");
    expect(text).toContain("tx-unproven");
    // Explained with every detail the admins' check loads: the listing itself leaves unverified purchases out.
    const listing = await listLibraryPosts(user, { context: await loadViewerContext(user, LISTING_VIEWER), explained: await loadExplainedViewer(user) });
    const listed = listing.posts.filter((item) => item.postId === locked.id || item.postId === post.id);
    const cards = describeLibraryCards(listing, listed, await listTiers());
    // The card's words leave the shop's item code out (the admins' check below keeps it).
    expect(cards[locked.id]!.misses).toEqual(["Not bought in the shop"]);
    const check = await checkAccess(user.id, locked.id);
    expect(check.access.misses).toEqual([
      "Bought on " + formatDay(new Date()) + " with unproven-pending@buyer.example, which is linked to this account but not verified",
    ]);
  });

  it("answers the account page's button with a JSON attachment", async () => {
    const user = await createTestUser();
    const response = await callRoute(dataRoute, { method: "POST", path: "/account/data", cookie: await sessionCookie(user.id), form: {} });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="creator-library-data-\d{4}-\d\d-\d\d\.json"$/);
    expect(((await response.json()) as { account: { email: string } }).account.email).toBe(user.email);
  });
});

describe("Delete my account", () => {
  const remove = async (userId: string, form: Record<string, string>) =>
    callRoute(deleteRoute, { method: "POST", path: "/account/delete", cookie: await sessionCookie(userId), form });

  it("needs the password, then removes every trace but anonymised purchases and pledges", async () => {
    const { user } = await personWithEverything("gone");
    expect((await remove(user.id, { intent: "delete", password: "wrong" })).status).toBe(401);
    expect(await db.user.count({ where: { id: user.id } })).toBe(1);

    const response = await remove(user.id, { intent: "delete", password: "Password1!" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(await db.user.count({ where: { id: user.id } })).toBe(0);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
    for (const needle of [
      "gone@person.example",
      "gone-shop@buyer.example",
      "gone-pending@buyer.example",
      "Person gone",
      "pat-gone",
      "goo-gone",
      "dis-gone",
      "tag-gone",
      "hash-feed-gone",
      "unsub-gone",
      user.id,
    ]) {
      const hits = await rowsContaining(needle);
      // The deletion's own audit entry names the removed account id, nothing else may.
      expect(
        hits.filter((hit) => !(needle === user.id && hit === "audit_log.target_id")),
        needle,
      ).toEqual([]);
    }
    const purchase = await db.purchase.findUniqueOrThrow({
      where: {
        transactionId_kofiItemCode: {
          transactionId: "tx-gone",
          kofiItemCode: (await db.purchase.findFirstOrThrow({ where: { transactionId: "tx-gone" } })).kofiItemCode,
        },
      },
    });
    expect(purchase.email).toMatch(/^deleted-[0-9a-f]{16}@anonymised\.invalid$/);
    expect(await db.anonymisedPledge.count({ where: { amountCents: 500, tierTitle: "Tier 2", date: new Date("2026-01-02") } })).toBe(1);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { action: "account.delete", targetId: user.id } });
    expect(audit.after).toEqual({ purchasesAnonymised: 1, pledgesAnonymised: 1 });

    // A signed shop webhook for the old email records a guest purchase, and no profile.
    const delivered = await callRoute(kofiWebhook, {
      method: "POST",
      path: "/api/webhooks/kofi",
      form: {
        data: JSON.stringify(
          kofiPayload({
            email: "gone-shop@buyer.example",
            kofi_transaction_id: "tx-after",
            shop_items: [{ direct_link_code: "item-after", variation_name: null, quantity: 1 }],
          }),
        ),
      },
    });
    expect(delivered.status).toBe(200);
    expect(await db.purchase.count({ where: { email: "gone-shop@buyer.example" } })).toBe(1);
    expect(await db.shopEmail.count({ where: { email: "gone-shop@buyer.example" } })).toBe(0);
    expect(await db.user.count({ where: { OR: [{ email: "gone@person.example" }, { email: "gone-shop@buyer.example" }] } })).toBe(0);
  });

  it("asks an account without a password for a mailed code", async () => {
    const user = await createTestUser({ password: null, googleId: "google-only", email: "provider-only@person.example", emailVerifiedBy: "GOOGLE" });
    expect((await remove(user.id, { intent: "delete", code: "123456" })).status).toBe(400);
    expect((await remove(user.id, { intent: "send-code" })).status).toBe(200);
    const code = await mail().nextCodeFor("provider-only@person.example");
    const response = await remove(user.id, { intent: "delete", code });
    expect(response.status).toBe(302);
    expect(await db.user.count({ where: { id: user.id } })).toBe(0);
  });

  it("refuses to delete the last admin", async () => {
    await db.user.updateMany({ data: { isAdmin: false, canBeAdmin: false } });
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const refused = await remove(admin.id, { intent: "delete", password: "Password1!" });
    expect(refused.status).toBe(409);
    expect(await db.user.count({ where: { id: admin.id } })).toBe(1);
    await createTestUser({ canBeAdmin: true });
    expect((await remove(admin.id, { intent: "delete", password: "Password1!" })).status).toBe(302);
  });

  it("two last admins deleting at once: exactly one goes", async () => {
    await db.user.updateMany({ data: { isAdmin: false, canBeAdmin: false } });
    const first = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const second = await createTestUser({ canBeAdmin: true });
    const results = await Promise.allSettled([first, second].map((user) => deleteOwnAccount(user.id, { password: "Password1!" })));
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ status: 409 });
    expect(await db.user.count({ where: { id: { in: [first.id, second.id] } } })).toBe(1);
  });
});
