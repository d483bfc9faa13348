import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.KOFI_VERIFICATION_TOKEN = "test-kofi-token";
});

import { db } from "~/db.server";
import { listLibraryPosts } from "~/models/library-listing.server";
import { deliverDueMail } from "~/models/mail-outbox.server";
import { SHOP_MESSAGES } from "~/utils/shop-schemas";
import * as link from "~/routes/api.kofi.link";
import * as verify from "~/routes/api.kofi.verify-email";
import * as resend from "~/routes/api.kofi.resend-verification";
import * as cancel from "~/routes/api.kofi.cancel-verification";
import * as kofiWebhook from "~/routes/api.webhooks.kofi";
import { kofiPayload } from "./fakes/kofi";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";
import { setEnv } from "./env";

const mail = useMailCapture();

async function loggedIn() {
  const user = await createTestUser();
  return { user, cookie: await sessionCookie(user.id) };
}

function post(route: typeof link, cookie: string | undefined, json: unknown) {
  return callRoute(route, { method: "POST", json, cookie });
}

/** The posts the library shows unlocked to the user: what production reads (viewer_context). */
async function unlockedPostIds(userId: string): Promise<string[]> {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  return (await listLibraryPosts(user)).posts.filter((post) => post.unlocked).map((post) => post.postId);
}

describe("shop email linking", () => {
  it("claims a guest purchase by linking and verifying the email it was bought with", async () => {
    await db.post.create({ data: { id: "guest-post", title: "Guest Post", kofiId: "guestcode", isKofiOnly: true } });
    // Bought as a guest, long before the account existed.
    const webhook = await callRoute(kofiWebhook, {
      method: "POST",
      form: {
        data: JSON.stringify(
          kofiPayload({ email: "guest@example.com", timestamp: "2020-01-01T00:00:00Z", shop_items: [{ direct_link_code: "guestcode", quantity: 1 }] }),
        ),
      },
    });
    expect(webhook.status).toBe(200);

    const { user, cookie } = await loggedIn();
    const linked = await post(link, cookie, { email: " Guest@Example.com " });
    expect(linked.status).toBe(200);
    expect(await readJsonBody(linked)).toEqual({ message: "Verification code sent to your email." });
    const code = await mail().nextCodeFor("guest@example.com");
    // Pending is not enough.
    expect(await unlockedPostIds(user.id)).toEqual([]);

    const wrong = await post(verify, cookie, { email: "guest@example.com", code: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(await readJsonBody(wrong)).toEqual({ error: "Invalid verification code." });

    const verified = await post(verify, cookie, { email: "guest@example.com", code });
    expect(verified.status).toBe(200);
    expect(await readJsonBody(verified)).toEqual({ message: "Email verified successfully." });
    const row = await db.shopEmail.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.verifiedEmail).toBe("guest@example.com");
    expect(await unlockedPostIds(user.id)).toEqual(["guest-post"]);

    // The code was single use.
    const reused = await post(verify, cookie, { email: "guest@example.com", code });
    expect(reused.status).toBe(200);
  });

  it("refuses an email another account already verified", async () => {
    const owner = await loggedIn();
    await post(link, owner.cookie, { email: "taken@example.com" });
    await post(verify, owner.cookie, { email: "taken@example.com", code: await mail().nextCodeFor("taken@example.com") });

    const other = await loggedIn();
    const response = await post(link, other.cookie, { email: "taken@example.com" });
    expect(response.status).toBe(409);
    expect(await readJsonBody(response)).toEqual({ error: "This email is already verified by another account." });
    expect(await db.shopEmail.count({ where: { userId: other.user.id } })).toBe(0);
  });

  it("lets two accounts race for an address: only the first to verify owns it", async () => {
    const first = await loggedIn();
    const second = await loggedIn();
    await post(link, first.cookie, { email: "race@example.com" });
    const firstCode = await mail().nextCodeFor("race@example.com");
    await post(link, second.cookie, { email: "race@example.com" });
    const secondCode = await mail().nextCodeFor("race@example.com");
    expect((await post(verify, first.cookie, { email: "race@example.com", code: firstCode })).status).toBe(200);
    const late = await post(verify, second.cookie, { email: "race@example.com", code: secondCode });
    expect(late.status).toBe(409);
    expect(await db.shopEmail.count({ where: { verifiedEmail: "race@example.com" } })).toBe(1);
  });

  it("keeps one pending email at a time, lists verified ones apart, resends with a cooldown and cancels", async () => {
    const { user, cookie } = await loggedIn();
    expect((await post(link, cookie, { email: "one@example.com" })).status).toBe(200);
    await mail().nextCodeFor("one@example.com");
    const second = await post(link, cookie, { email: "two@example.com" });
    expect(second.status).toBe(409);
    expect(await readJsonBody(second)).toEqual({ error: "Finish or cancel the pending verification before linking another email." });

    const tooSoon = await post(resend, cookie, { email: "one@example.com" });
    expect(tooSoon.status).toBe(429);
    const wait = (await readJsonBody<{ error: string }>(tooSoon)).error.match(/^Please wait (\d+) seconds before requesting a new code\.$/);
    // The header says the same wait as the words.
    expect(tooSoon.headers.get("Retry-After")).toBe(wait?.[1]);

    // A minute later the resend goes out, and only the newest code works.
    await db.verification.updateMany({ where: { purpose: "SHOP_EMAIL" }, data: { lastSentAt: new Date(Date.now() - 61_000) } });
    const resent = await post(resend, cookie, { email: "one@example.com" });
    expect(resent.status).toBe(200);
    expect(await readJsonBody(resent)).toEqual({ message: "Verification code resent to your email." });
    await mail().nextCodeFor("one@example.com");

    const canceled = await post(cancel, cookie, { email: "one@example.com" });
    expect(canceled.status).toBe(200);
    expect(await readJsonBody(canceled)).toEqual({ message: "Verification process canceled." });
    expect(await db.shopEmail.count({ where: { userId: user.id } })).toBe(0);
    expect(await db.verification.count({ where: { purpose: "SHOP_EMAIL", target: `${user.id}:one@example.com` } })).toBe(0);
    // Nothing pending any more: a second cancel says so.
    expect((await post(cancel, cookie, { email: "one@example.com" })).status).toBe(404);

    // Now another address may be linked.
    expect((await post(link, cookie, { email: "two@example.com" })).status).toBe(200);
  });

  it("limits how many code mails one account can cause", async () => {
    const { user, cookie } = await loggedIn();
    for (let index = 0; index < 10; index++) {
      const email = `cannon${index}@example.com`;
      expect((await post(link, cookie, { email })).status).toBe(200);
      expect((await post(cancel, cookie, { email })).status).toBe(200);
    }
    const refused = await post(link, cookie, { email: "cannon-last@example.com" });
    expect(refused.status).toBe(429);
    expect((await readJsonBody<{ error: string }>(refused)).error).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(60 * 59);
    expect(await db.shopEmail.count({ where: { userId: user.id } })).toBe(0);
  });

  it("validates input in the spec's words and requires a login", async () => {
    const { cookie } = await loggedIn();
    const empty = await post(link, cookie, { email: "  " });
    expect(empty.status).toBe(400);
    expect(await readJsonBody(empty)).toEqual({ error: "Ko-fi email cannot be empty." });
    const bad = await post(link, cookie, { email: "nope" });
    expect(await readJsonBody(bad)).toEqual({ error: "Invalid email format." });
    const guest = await post(link, undefined, { email: "x@example.com" });
    expect(guest.status).toBe(401);
  });

  // Last in the file: the failure is logged on purpose, so console.error stays allowed after it.
  it("links as usual while the mail server is down: the code mail waits in the outbox and arrives once it is back", async () => {
    (globalThis as { __allowConsoleError?: boolean }).__allowConsoleError = true;
    const { user, cookie } = await loggedIn();
    setEnv("SMTP_URL", "smtp://127.0.0.1:1");
    try {
      const response = await post(link, cookie, { email: "nomail@example.com" });
      expect(response.status).toBe(200);
      expect(await readJsonBody(response)).toMatchObject({ message: SHOP_MESSAGES.sent });
    } finally {
      setEnv("SMTP_URL", mail().url);
    }
    expect(await db.shopEmail.count({ where: { userId: user.id, verifiedAt: null } })).toBe(1);
    expect(await db.outboxMail.count({ where: { userId: user.id, to: "nomail@example.com", status: "PENDING" } })).toBe(1);
    await deliverDueMail({ now: new Date(Date.now() + 60_000) });
    expect(await mail().nextCodeFor("nomail@example.com")).toMatch(/^\d{6}$/);
  });
});
