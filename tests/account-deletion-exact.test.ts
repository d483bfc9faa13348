// Deleting an account forgets the rate-limit windows and audit details that name it, and only
// those: an address with `_` (a LIKE wildcard) or one that is the tail of another address
// (n@gmail.com in ann@gmail.com) must not reach other people's rows.
import { db } from "~/db.server";
import { deleteOwnAccount } from "~/models/account-deletion.server";
import { recordAudit } from "~/models/audit.server";
import * as loginRoute from "~/routes/api.auth.login";
import * as registerRoute from "~/routes/api.auth.register";
import { callRoute, createTestUser } from "./helpers";
import { useMailCapture } from "./mail-capture";

useMailCapture();

const PASSWORD = "Secret123";

async function login(email: string, password: string) {
  return callRoute(loginRoute, { method: "POST", path: "/api/auth/login", json: { email, password } });
}

/** Signs up through the API and deletes the new account again with its password. */
async function signUpAndDelete(email: string) {
  const register = await callRoute(registerRoute, { method: "POST", path: "/api/auth/register", json: { email, password: PASSWORD } });
  expect(register.status).toBe(201);
  const user = await db.user.findUniqueOrThrow({ where: { email } });
  await deleteOwnAccount(user.id, { password: PASSWORD });
  expect(await db.user.count({ where: { id: user.id } })).toBe(0);
}

/** Another person: locked out of login after 11 wrong passwords, and an admin's audited edit of them. */
async function otherPerson(email: string) {
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  const other = await createTestUser({ email, password: PASSWORD });
  await recordAudit({
    actorId: admin.id,
    action: "user.update",
    targetType: "user",
    targetId: other.id,
    before: { email, fullName: "Before" },
    after: { email, fullName: "After" },
  });
  for (let attempt = 1; attempt <= 10; attempt++) expect((await login(email, "Wrong1234")).status).toBe(401);
  expect((await login(email, "Wrong1234")).status).toBe(429);
  return other;
}

describe("account deletion forgets exactly the account's own rows", () => {
  it("an address with `_` leaves other people's login locks and audit details alone", async () => {
    const other = await otherPerson("victim@example.com");
    await signUpAndDelete("_@example.com");
    // Attempt 12 is still refused: the lock of the other address stays.
    expect((await login("victim@example.com", PASSWORD)).status).toBe(429);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: other.id, action: "user.update" } });
    expect(audit.before).toEqual({ email: "victim@example.com", fullName: "Before" });
    expect(audit.after).toEqual({ email: "victim@example.com", fullName: "After" });
  });

  it("an address that ends another one (n@gmail.com in ann@gmail.com) leaves that one alone", async () => {
    const other = await otherPerson("ann@gmail.com");
    await signUpAndDelete("n@gmail.com");
    expect((await login("ann@gmail.com", PASSWORD)).status).toBe(429);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: other.id, action: "user.update" } });
    expect(audit.before).toEqual({ email: "ann@gmail.com", fullName: "Before" });
  });

  it("still forgets the deleted account's own windows and the audit details that name it", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const bystander = await createTestUser({ email: "bystander@example.com" });
    const email = "leaving_person@example.com";
    const register = await callRoute(registerRoute, { method: "POST", path: "/api/auth/register", json: { email, password: PASSWORD } });
    expect(register.status).toBe(201);
    // The address is proven (as the mailed code would), so what names it is this person's.
    const user = await db.user.update({ where: { email }, data: { mailVerified: true, emailVerifiedBy: "CODE" } });
    expect((await login(email, "Wrong1234")).status).toBe(401);
    await db.rateLimit.create({ data: { key: `like:user:${user.id}`, count: 1, resetAt: new Date(Date.now() + 60_000) } });
    await db.rateLimit.create({ data: { key: `shop-email-link:${user.id}`, count: 1, resetAt: new Date(Date.now() + 60_000) } });
    // An entry about someone else that names this address (the address was taken from them) loses its details.
    await recordAudit({
      actorId: null,
      action: "user.email.reclaimed",
      targetType: "user",
      targetId: bystander.id,
      before: { email: "Leaving_Person@example.com", mailVerified: false },
      after: { email: null },
    });
    // One that names the account in a nested field, and one that names another address only.
    await recordAudit({
      actorId: admin.id,
      action: "user.update",
      targetType: "user",
      targetId: bystander.id,
      before: { kofiEmails: [] },
      after: { kofiEmails: [{ email, emailVerified: false }] },
    });
    await recordAudit({ actorId: admin.id, action: "unlocks.recompute", targetType: "job", targetId: null, after: { userId: user.id, added: 1 } });
    await recordAudit({
      actorId: admin.id,
      action: "user.update",
      targetType: "user",
      targetId: bystander.id,
      before: { email: "bystander@example.com" },
      after: { email: "bystander@other.example" },
    });

    await deleteOwnAccount(user.id, { password: PASSWORD });
    const keys = (await db.rateLimit.findMany({ select: { key: true } })).map((row) => row.key);
    expect(keys.filter((key) => key.includes(email) || key.includes(user.id))).toEqual([]);
    const entries = await db.auditEntry.findMany({ where: { OR: [{ targetId: bystander.id }, { action: "unlocks.recompute" }] } });
    const details = entries.map((entry) => [entry.action, entry.before, entry.after]);
    expect(details).toHaveLength(4);
    expect(details).toEqual(
      expect.arrayContaining([
        ["user.email.reclaimed", null, null],
        ["user.update", null, null],
        ["unlocks.recompute", null, null],
        ["user.update", { email: "bystander@example.com" }, { email: "bystander@other.example" }],
      ]),
    );
  });

  it("an unproven address reaches nothing: signing up with an address someone used before wipes none of their entries or limits", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const owner = await createTestUser({ email: "owner-new@example.com" });
    await recordAudit({
      actorId: admin.id,
      action: "user.update",
      targetType: "user",
      targetId: owner.id,
      before: { email: "owner-old@example.com" },
      after: { email: "owner-new@example.com" },
    });
    await db.rateLimit.create({ data: { key: "shop-email-mail:email:owner-old@example.com", count: 5, resetAt: new Date(Date.now() + 60_000) } });
    await signUpAndDelete("owner-old@example.com");
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: owner.id, action: "user.update" } });
    expect(audit.before).toEqual({ email: "owner-old@example.com" });
    expect(await db.rateLimit.count({ where: { key: "shop-email-mail:email:owner-old@example.com" } })).toBe(1);
  });
});
