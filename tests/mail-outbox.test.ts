// The mail outbox (docs/decisions/018-mail-outbox.md) against a real SMTP capture server and a
// real closed port: a release notice queued while the mail server is down arrives once it is
// back, exactly once per recipient; racing senders never send a message twice; what is not sent
// by its give-up time shows as given up, with its last error, to admins; and a sign-up that the
// database fails half-way leaves nothing behind, so its retry works.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { deliverDueMail, enqueueMail, MAIL_GIVE_UP_MS, type OutboxOverview } from "~/models/mail-outbox.server";
import { requestPasswordReset } from "~/models/passwords.server";
import { RELEASE_MAIL_SUBJECT, runReleaseMails } from "~/models/release-mail.server";
import { setReleaseSteps } from "~/models/release.server";
import { saveUpdatePreferences, unsubscribeByToken, UPDATE_MESSAGES } from "~/models/update-notifications.server";
import * as outboxApi from "~/routes/api.admin.mail";
import * as outboxPage from "~/routes/admin_.mail";
import * as registerRoute from "~/routes/api.auth.register";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { startMailCapture, type MailCapture } from "./mail-capture";
import { setEnv } from "./env";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A port on 127.0.0.1 that nothing listens on: the mail server is down. */
async function closedPort(): Promise<number> {
  const server = http.createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let capture: MailCapture;
let downUrl = "";
const smtpDown = () => setEnv("SMTP_URL", downUrl);
const smtpUp = () => setEnv("SMTP_URL", capture.url);
const mailsTo = (address: string) => capture.messages.filter((message) => message.to.includes(address.toLowerCase()));

// Failed deliveries and give-ups are logged on purpose.
globalThis.__allowConsoleError = true;

beforeAll(async () => {
  capture = await startMailCapture();
  downUrl = `smtp://127.0.0.1:${await closedPort()}`;
  await createTiers();
});

afterAll(async () => {
  setEnv("SMTP_URL", undefined);
  await capture.stop();
});

describe("the mail server is down when a release step opens", () => {
  it("queues one notice per recipient, and once it is back exactly one notice reaches each", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const readers: User[] = [];
    for (let index = 0; index < 3; index++) readers.push(await createTestUser({ currentTierId: TIER_2 }));
    for (const reader of readers) await saveUpdatePreferences(reader.id, { releases: "on" });
    await db.updateSubscription.updateMany({ data: { releasesSince: new Date(Date.now() - DAY) } });
    const post = await createPost({ tiers: [], title: "Storm Night Pack", firstPublishedAt: new Date(Date.now() - 3 * DAY) });

    smtpDown();
    await setReleaseSteps(admin, post.id, { steps: [{ audience: TIER_2, opens_on: new Date(Date.now() - 1000) }] });
    const opening = await runReleaseMails();
    expect(opening).toMatchObject({ skipped: null, queued: 3, mailed: 0, failed: 3 });
    // The next minutes' runs, still without a mail server, queue nothing more.
    expect((await runReleaseMails(new Date(Date.now() + MINUTE))).skipped).toBe("nothing");
    expect(await deliverDueMail({ now: new Date(Date.now() + 2 * MINUTE) })).toMatchObject({ sent: 0 });
    for (const reader of readers) expect(mailsTo(reader.email!)).toEqual([]);
    const queued = await db.outboxMail.findMany({ where: { kind: "release" } });
    expect(queued).toHaveLength(3);
    expect(queued.every((message) => message.status === "PENDING" && message.attempts >= 1 && /ECONNECTION|ECONNREFUSED/.test(message.lastError ?? ""))).toBe(
      true,
    );

    // The mail server is back: the sender job's next pass delivers each notice.
    smtpUp();
    const later = new Date(Date.now() + 30 * MINUTE);
    expect(await deliverDueMail({ now: later })).toMatchObject({ sent: 3 });
    // Further passes and runs send nothing more.
    expect(await deliverDueMail({ now: new Date(later.getTime() + MINUTE) })).toMatchObject({ sent: 0 });
    expect((await runReleaseMails(new Date(later.getTime() + MINUTE))).skipped).toBe("nothing");
    for (const reader of readers) {
      const received = mailsTo(reader.email!);
      expect(received).toHaveLength(1);
      expect(received[0]!.subject).toBe(RELEASE_MAIL_SUBJECT);
      expect(received[0]!.text).toContain("- Now available for your tier: Storm Night Pack");
    }
    expect(await db.outboxMail.count({ where: { kind: "release", status: "SENT" } })).toBe(3);
    // A sent code or notice keeps no body.
    expect(await db.outboxMail.count({ where: { kind: "release", NOT: { text: "" } } })).toBe(0);
  });
});

describe("several senders at once", () => {
  it("send each message exactly once, and enqueueing the same message again adds nothing", async () => {
    smtpUp();
    const addresses = Array.from({ length: 30 }, (_, index) => `race${index}@outbox.example`);
    for (const to of addresses) {
      const mail = { to, subject: "Race", text: `Hello ${to}`, html: `<p>Hello ${to}</p>` };
      expect(await enqueueMail(db, { key: `race:${to}`, kind: "release", mail })).not.toBeNull();
      // Again, as a retried run would: a no-op.
      expect(await enqueueMail(db, { key: `race:${to}`, kind: "release", mail })).toBeNull();
    }
    expect(await db.outboxMail.count({ where: { idempotencyKey: { startsWith: "race:" } } })).toBe(30);

    // Three app servers' sender jobs, and a request sending some of them at once, all together.
    const some = await db.outboxMail.findMany({ where: { idempotencyKey: { startsWith: "race:" } }, take: 10, select: { id: true } });
    const runs = await Promise.all([
      deliverDueMail({ limit: 4 }),
      deliverDueMail({ limit: 4 }),
      deliverDueMail({ limit: 4 }),
      deliverDueMail({ ids: some.map((row) => row.id) }),
    ]);
    expect(runs.reduce((sum, run) => sum + run.sent, 0)).toBe(30);
    for (const to of addresses) expect(mailsTo(to)).toHaveLength(1);
    expect(await db.outboxMail.count({ where: { idempotencyKey: { startsWith: "race:" }, status: "SENT" } })).toBe(30);
  });

  it("a message another sender has claimed is not sent again before that claim runs out", async () => {
    smtpUp();
    const to = "claimed@outbox.example";
    const id = (await enqueueMail(db, { key: `claimed:${to}`, kind: "release", mail: { to, subject: "Claimed", text: "x", html: "<p>x</p>" } }))!;
    // Another sender claimed it a moment ago and is still sending it.
    await db.outboxMail.update({
      where: { id },
      data: { status: "SENDING", claimToken: "other", claimedUntil: new Date(Date.now() + 5 * MINUTE), attempts: 1 },
    });
    expect(await deliverDueMail()).toMatchObject({ sent: 0 });
    expect(mailsTo(to)).toHaveLength(0);
    // That sender died: after its claim runs out, the message is sent (once).
    expect(await deliverDueMail({ now: new Date(Date.now() + 11 * MINUTE) })).toMatchObject({ sent: 1 });
    expect(mailsTo(to)).toHaveLength(1);
    // The dead sender's late "sent" finds its claim gone and changes nothing.
    expect((await db.outboxMail.findUniqueOrThrow({ where: { id } })).status).toBe("SENT");
  });
});

describe("giving up", () => {
  it("a notice not sent within 48 hours is given up, and admins see it with its last error", async () => {
    smtpDown();
    const to = "never@outbox.example";
    const start = new Date();
    await enqueueMail(db, { key: `never:${to}`, kind: "release", mail: { to, subject: "Never delivered", text: "x", html: "<p>x</p>" }, now: start });
    // Attempts keep failing, each later than the one before, until the give-up time.
    const first = await deliverDueMail({ now: start });
    expect(first.retrying).toBeGreaterThanOrEqual(1);
    const afterFirst = await db.outboxMail.findFirstOrThrow({ where: { to } });
    await deliverDueMail({ now: new Date(afterFirst.nextAttemptAt.getTime()) });
    const afterSecond = await db.outboxMail.findFirstOrThrow({ where: { to } });
    expect(afterSecond).toMatchObject({ status: "PENDING", attempts: 2 });
    expect(afterSecond.nextAttemptAt.getTime() - afterFirst.nextAttemptAt.getTime()).toBeGreaterThan(afterFirst.nextAttemptAt.getTime() - start.getTime());
    await deliverDueMail({ now: new Date(start.getTime() + MAIL_GIVE_UP_MS - MINUTE) });
    expect((await db.outboxMail.findFirstOrThrow({ where: { to } })).status).toBe("PENDING");

    // The mail server is back, but too late: the notice is given up, not sent.
    smtpUp();
    expect(await deliverDueMail({ now: new Date(start.getTime() + MAIL_GIVE_UP_MS + MINUTE) })).toMatchObject({ sent: 0 });
    expect(mailsTo(to)).toEqual([]);
    const given = await db.outboxMail.findFirstOrThrow({ where: { to } });
    expect(given).toMatchObject({ status: "GIVEN_UP", text: "", html: "" });
    expect(given.lastError).toMatch(/ECONNECTION|ECONNREFUSED/);

    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const api = await callRoute(outboxApi, { path: "/api/admin/mail", cookie });
    expect(api.status).toBe(200);
    const overview = await readJsonBody<OutboxOverview>(api);
    expect(overview.counts.given_up).toBeGreaterThanOrEqual(1);
    expect(overview.givenUp.find((row) => row.to === to)).toMatchObject({ state: "given_up", subject: "Never delivered", lastError: given.lastError });
    const page = await callRoute(outboxPage, { path: "/admin/mail", cookie });
    expect(page.status).toBe(200);
    const data = (await page.json()) as OutboxOverview;
    expect(data.givenUp.some((row) => row.to === to && row.lastError === given.lastError)).toBe(true);

    // Nobody else may look.
    const reader = await createTestUser();
    expect((await callRoute(outboxApi, { path: "/api/admin/mail", cookie: await sessionCookie(reader.id) })).status).toBe(403);
    expect((await callRoute(outboxApi, { path: "/api/admin/mail" })).status).toBe(401);
    const refused = await callRoute(outboxPage, { path: "/admin/mail", cookie: await sessionCookie(reader.id) });
    expect(refused.status).toBe(302);
  });

  it("a code mail is given up before its code expires, and a newer code replaces a queued one", async () => {
    smtpDown();
    const user = await createTestUser({ email: "late-code@outbox.example" });
    expect(await requestPasswordReset(user.email!)).toBe("If an account exists with that email, a reset code has been sent.");
    const queued = await db.outboxMail.findFirstOrThrow({ where: { to: user.email!, kind: "code" } });
    expect(queued).toMatchObject({ status: "PENDING", attempts: 1, subject: "Your password reset code" });
    const code = await db.verification.findFirstOrThrow({ where: { purpose: "PASSWORD_RESET", target: user.email! } });
    expect(queued.giveUpAt.getTime()).toBeLessThan(code.expiresAt.getTime());

    smtpUp();
    // Back only after the code expired: the mail with a dead code is not sent.
    expect(await deliverDueMail({ now: new Date(code.expiresAt.getTime() + MINUTE) })).toMatchObject({ sent: 0 });
    expect(mailsTo(user.email!)).toEqual([]);
    expect(await db.outboxMail.findUniqueOrThrow({ where: { id: queued.id } })).toMatchObject({ status: "GIVEN_UP" });

    // A second user's reset queued while the server is down, then asked again after the cooldown:
    // only the newer code is mailed.
    smtpDown();
    const other = await createTestUser({ email: "two-codes@outbox.example" });
    await requestPasswordReset(other.email!);
    await db.verification.updateMany({ where: { target: other.email! }, data: { lastSentAt: new Date(Date.now() - 2 * MINUTE) } });
    smtpUp();
    await requestPasswordReset(other.email!);
    const received = mailsTo(other.email!);
    expect(received).toHaveLength(1);
    expect(await deliverDueMail({ now: new Date(Date.now() + 5 * MINUTE) })).toMatchObject({ sent: 0 });
    expect(mailsTo(other.email!)).toHaveLength(1);
    expect(await db.outboxMail.count({ where: { to: other.email!, status: "GIVEN_UP", lastError: "Replaced by a newer message." } })).toBe(1);
  });
});

describe("a recipient the mail server refuses for good", () => {
  it("is given up at once with the server's answer, not retried", async () => {
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo(_address, _session, callback) {
        const error = new Error("5.1.1 No such mailbox here") as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    try {
      setEnv("SMTP_URL", `smtp://127.0.0.1:${(refusing.server.address() as AddressInfo).port}`);
      const to = "nobody-here@outbox.example";
      await enqueueMail(db, { key: `refused:${to}`, kind: "release", mail: { to, subject: "Refused", text: "x", html: "<p>x</p>" } });
      expect(await deliverDueMail()).toMatchObject({ sent: 0, givenUp: 1 });
      const refused = await db.outboxMail.findFirstOrThrow({ where: { to } });
      expect(refused).toMatchObject({ status: "GIVEN_UP", attempts: 1 });
      expect(refused.lastError).toMatch(/^EENVELOPE 550: .*No such mailbox here/);
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});

describe("unsubscribing while update mails wait", () => {
  it("gives up the account's queued notices and digests, and not its codes", async () => {
    smtpDown();
    const reader = await createTestUser({ currentTierId: TIER_2 });
    await saveUpdatePreferences(reader.id, { releases: "on", newPosts: "on" });
    const { unsubscribeToken } = await db.updateSubscription.findUniqueOrThrow({ where: { userId: reader.id } });
    const to = reader.email!;
    await enqueueMail(db, {
      key: `notice:${to}`,
      kind: "release",
      userId: reader.id,
      mail: { to, subject: RELEASE_MAIL_SUBJECT, text: "x", html: "<p>x</p>" },
    });
    await enqueueMail(db, { key: `code:${to}`, kind: "code", userId: reader.id, mail: { to, subject: "Your code", text: "123456", html: "<p>123456</p>" } });
    await deliverDueMail();
    expect(await unsubscribeByToken(unsubscribeToken)).toEqual({ message: UPDATE_MESSAGES.unsubscribed });
    smtpUp();
    expect(await deliverDueMail({ now: new Date(Date.now() + 10 * MINUTE) })).toMatchObject({ sent: 1 });
    expect(mailsTo(to).map((message) => message.subject)).toEqual(["Your code"]);
    expect(await db.outboxMail.findFirstOrThrow({ where: { to, kind: "release" } })).toMatchObject({
      status: "GIVEN_UP",
      lastError: "The recipient unsubscribed.",
    });
  });
});

describe("a sign-up that the database fails half-way", () => {
  // The fault is a trigger that fails the insert of the code, or of its mail: each is a step
  // after the account row was written, in the same transaction.
  const faults = [
    { table: "verifications", what: "the insert of the code fails" },
    { table: "mail_outbox", what: "the insert of the code's mail fails" },
  ];
  for (const [index, { table, what }] of faults.entries()) {
    it(`leaves no account, no code and no mail when ${what}, and its retry signs up`, async () => {
      smtpUp();
      const email = `half-${index}@outbox.example`;
      await db.$executeRawUnsafe(
        `CREATE FUNCTION fail_signup() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'simulated database failure'; END $$ LANGUAGE plpgsql`,
      );
      await db.$executeRawUnsafe(`CREATE TRIGGER fail_signup BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_signup()`);
      try {
        const failed = await callRoute(registerRoute, { method: "POST", path: "/api/auth/register", json: { email, password: "Secret1234!" } });
        expect(failed.status).toBe(503);
        expect(failed.headers.get("Retry-After")).toBe("5");
        expect(failed.headers.get("Set-Cookie")).toBeNull();
        expect(await readJsonBody(failed)).toEqual({ error: "Failed to sign up." });
      } finally {
        await db.$executeRawUnsafe(`DROP TRIGGER fail_signup ON ${table}`);
        await db.$executeRawUnsafe(`DROP FUNCTION fail_signup()`);
      }
      expect(await db.user.count({ where: { email } })).toBe(0);
      expect(await db.verification.count({ where: { target: email } })).toBe(0);
      expect(await db.outboxMail.count({ where: { to: email } })).toBe(0);
      expect(mailsTo(email)).toEqual([]);

      const retry = await callRoute(registerRoute, { method: "POST", path: "/api/auth/register", json: { email, password: "Secret1234!" } });
      expect(retry.status).toBe(201);
      expect(await readJsonBody(retry)).toMatchObject({ message: "Account created and logged in successfully." });
      expect(await db.user.count({ where: { email, mailVerified: false } })).toBe(1);
      expect(await db.verification.count({ where: { target: email, purpose: "EMAIL_VERIFY" } })).toBe(1);
      expect(await db.outboxMail.count({ where: { to: email, status: "SENT" } })).toBe(1);
      expect(await capture.nextCodeFor(email)).toMatch(/^\d{6}$/);
    });
  }
});
