import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { codeMail, sendMail } from "~/integrations/mail.server";
import { consumeRateLimit, enforceRateLimit } from "~/models/rate-limit.server";
import { cancelCode, checkCode, issueCode, MAX_CODE_ATTEMPTS, pendingCode } from "~/models/verification.server";
import { startMailCapture, type MailCapture } from "./mail-capture";
import { setEnv } from "./env";

let capture: MailCapture;
beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(async () => {
  setEnv("SMTP_URL", undefined);
  await capture.stop();
});

describe("mail", () => {
  it("delivers over SMTP with text and HTML, and the code reads back from the mail", async () => {
    setEnv("SMTP_URL", capture.url);
    await sendMail(codeMail({ to: "Reader@Example.com", subject: "Your code", intro: "Hello there.", code: "042137", outro: "Bye." }));
    const mail = await capture.nextMailTo("reader@example.com");
    expect(mail.subject).toBe("Your code");
    expect(mail.text).toContain("Hello there.");
    expect(mail.html).toContain("042137");
    expect(mail.html).toContain("<p>Hello there.</p>");
    setEnv("SMTP_URL", undefined);
  });

  it("without SMTP writes the mail into DATA_DIR/mail", async () => {
    setEnv("SMTP_URL", undefined);
    await sendMail(codeMail({ to: "file@example.com", subject: "Filed", intro: "Intro", code: "123456", outro: "Outro" }));
    const folder = path.join(process.env.DATA_DIR!, "mail");
    const files = await readdir(folder);
    expect(files.some((file) => file.endsWith(".eml"))).toBe(true);
    const txt = files.find((file) => file.endsWith(".txt"))!;
    const content = await readFile(path.join(folder, txt), "utf8");
    expect(content).toContain("To: file@example.com");
    expect(content).toContain("123456");
  });
});

describe("verification codes", () => {
  it("stores only a hash, accepts the right code once", async () => {
    const issued = await issueCode({ purpose: "EMAIL_VERIFY", target: "a@example.com" });
    if (!issued.ok) throw new Error("expected a code");
    expect(issued.code).toMatch(/^\d{6}$/);
    const row = await db.verification.findFirstOrThrow({ where: { target: "a@example.com" } });
    expect(row.codeHash).not.toContain(issued.code);
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    expect(await checkCode({ purpose: "EMAIL_VERIFY", target: "A@example.com", code: issued.code })).toEqual({ ok: true, userId: null });
    expect(await checkCode({ purpose: "EMAIL_VERIFY", target: "a@example.com", code: issued.code })).toEqual({ ok: false, reason: "missing" });
  });

  it("refuses a resend within 60 s and allows it after", async () => {
    const now = new Date();
    const first = await issueCode({ purpose: "PASSWORD_RESET", target: "b@example.com", now });
    expect(first.ok).toBe(true);
    const again = await issueCode({ purpose: "PASSWORD_RESET", target: "b@example.com", now: new Date(now.getTime() + 20_000) });
    expect(again).toEqual({ ok: false, reason: "cooldown", retryAfterSeconds: 40 });
    expect((await pendingCode("PASSWORD_RESET", "b@example.com", new Date(now.getTime() + 20_000)))?.resendInSeconds).toBe(40);
    const later = await issueCode({ purpose: "PASSWORD_RESET", target: "b@example.com", now: new Date(now.getTime() + 61_000) });
    expect(later.ok).toBe(true);
    // The old code no longer works; the new one does.
    if (!first.ok || !later.ok) throw new Error("expected codes");
    if (first.code !== later.code) {
      expect(await checkCode({ purpose: "PASSWORD_RESET", target: "b@example.com", code: first.code })).toMatchObject({ ok: false, reason: "wrong-code" });
    }
    expect(await checkCode({ purpose: "PASSWORD_RESET", target: "b@example.com", code: later.code })).toMatchObject({ ok: true });
  });

  it("expires after 15 minutes", async () => {
    const issued = await issueCode({ purpose: "EMAIL_VERIFY", target: "c@example.com" });
    if (!issued.ok) throw new Error("expected a code");
    const result = await checkCode({ purpose: "EMAIL_VERIFY", target: "c@example.com", code: issued.code, now: new Date(Date.now() + 15 * 60 * 1000 + 1000) });
    expect(result).toEqual({ ok: false, reason: "expired" });
  });

  it("locks after a few wrong codes, even for the right one", async () => {
    const issued = await issueCode({ purpose: "SHOP_EMAIL", target: "u1:d@example.com", userId: null });
    if (!issued.ok) throw new Error("expected a code");
    const wrong = issued.code === "000000" ? "111111" : "000000";
    for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
      expect(await checkCode({ purpose: "SHOP_EMAIL", target: "u1:d@example.com", code: wrong })).toEqual({ ok: false, reason: "wrong-code" });
    }
    expect(await checkCode({ purpose: "SHOP_EMAIL", target: "u1:d@example.com", code: issued.code })).toEqual({ ok: false, reason: "too-many-attempts" });
  });

  it("cancel removes the pending code; purposes do not mix", async () => {
    const issued = await issueCode({ purpose: "EMAIL_VERIFY", target: "e@example.com" });
    if (!issued.ok) throw new Error("expected a code");
    expect(await checkCode({ purpose: "PASSWORD_RESET", target: "e@example.com", code: issued.code })).toEqual({ ok: false, reason: "missing" });
    await cancelCode("EMAIL_VERIFY", "e@example.com");
    expect(await pendingCode("EMAIL_VERIFY", "e@example.com")).toBeNull();
  });

  it("a code is consumed only once even when checked in parallel", async () => {
    const issued = await issueCode({ purpose: "EMAIL_VERIFY", target: "f@example.com" });
    if (!issued.ok) throw new Error("expected a code");
    const results = await Promise.all([1, 2, 3].map(() => checkCode({ purpose: "EMAIL_VERIFY", target: "f@example.com", code: issued.code })));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });
});

describe("rate limits", () => {
  it("counts attempts in a fixed window shared through the database", async () => {
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await consumeRateLimit("login:x", 3, 60_000));
    expect(results.map((result) => result.allowed)).toEqual([true, true, true, false]);
    expect(results[3]!.retryAfterSeconds).toBeGreaterThan(50);
    // A refusal every caller answers alike: 429, the spec's words, and the wait as Retry-After.
    await expect(enforceRateLimit("login:x", 3, 60_000)).rejects.toMatchObject({
      status: 429,
      code: "rate_limited",
      message: expect.stringMatching(/^Too many attempts\. Please try again in 1 minute\.$/),
      headers: { "Retry-After": expect.stringMatching(/^(5\d|60)$/) },
    });
    expect((await db.rateLimit.findUniqueOrThrow({ where: { key: "login:x" } })).count).toBe(5);
  });

  it("starts a new window when the old one ended", async () => {
    await consumeRateLimit("reset:y", 1, 60_000);
    expect((await consumeRateLimit("reset:y", 1, 60_000)).allowed).toBe(false);
    // The window ends (moved into the past rather than waited for: no timing in the test).
    await db.rateLimit.update({ where: { key: "reset:y" }, data: { resetAt: new Date(Date.now() - 1000) } });
    expect((await consumeRateLimit("reset:y", 1, 60_000)).allowed).toBe(true);
    expect((await db.rateLimit.findUniqueOrThrow({ where: { key: "reset:y" } })).count).toBe(1);
  });

  it("parallel attempts never exceed the limit", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => consumeRateLimit("par:z", 4, 60_000)));
    expect(results.filter((result) => result.allowed)).toHaveLength(4);
  });
});
