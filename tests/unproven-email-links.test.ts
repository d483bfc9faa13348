// Ways into an account and the proof of its email (docs/security-model.md, "Email addresses"):
// nothing that lets someone in (a provider identity, a shop email, the feed link, an API token)
// attaches to an account whose address nobody has proven, and the first proof of the address
// ends whatever was attached before it, sessions included. The takeover is walked through the
// fake OAuth providers, the real routes and the mailed codes.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/db.server";
import type { ProviderProfile } from "~/integrations/oauth.server";
import { hashToken } from "~/models/session.server";
import * as notificationsPage from "~/routes/account.notifications";
import * as shopEmailForm from "~/routes/account.shop-email";
import * as callbackApi from "~/routes/api.auth.callback";
import * as forgotRoute from "~/routes/api.auth.forgot-password";
import * as loginRoute from "~/routes/api.auth.login";
import * as patreonCallback from "~/routes/api.auth.patreon-callback";
import * as registerRoute from "~/routes/api.auth.register";
import * as resetRoute from "~/routes/api.auth.reset-password";
import * as toggleAdminRoute from "~/routes/api.auth.toggle-admin";
import * as userRoute from "~/routes/api.auth.user";
import * as verifyRoute from "~/routes/api.auth.verify-email";
import * as discordStart from "~/routes/api.discord.auth";
import * as discordCallback from "~/routes/api.discord.callback";
import * as feedRoute from "~/routes/feeds.$token[.]atom";
import * as googleStart from "~/routes/api.google.auth";
import * as googleCallback from "~/routes/api.google.callback";
import * as kofiCancel from "~/routes/api.kofi.cancel-verification";
import * as kofiLink from "~/routes/api.kofi.link";
import * as kofiResend from "~/routes/api.kofi.resend-verification";
import * as kofiVerify from "~/routes/api.kofi.verify-email";
import * as loginPage from "~/routes/login";
import { startFakeProviders, type FakeProvider, type FakeProviders, type FakeUser } from "../scripts/fake-providers";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();

const UNPROVEN = "Please verify your email address before linking anything to your account.";

// The configuration is read once per process: the fakes' address and the admin list are fixed
// before any import.
// The port comes from freePort (scripts/app-server.ts), below the range of outgoing connections.
const fakePort = await vi.hoisted(async () => {
  const { freePort } = await import("../scripts/app-server");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  for (const provider of ["google", "discord", "patreon"]) {
    const upper = provider.toUpperCase();
    process.env[`${upper}_CLIENT_ID`] = `fake-${provider}-client`;
    process.env[`${upper}_CLIENT_SECRET`] = `fake-${provider}-secret`;
    process.env[`${upper}_AUTHORIZE_URL`] = `${url}/${provider}/authorize`;
    process.env[`${upper}_TOKEN_URL`] = `${url}/${provider}/token`;
  }
  process.env.GOOGLE_USERINFO_URL = `${url}/google/userinfo`;
  process.env.DISCORD_API_URL = `${url}/discord`;
  process.env.PATREON_API_URL = `${url}/patreon`;
  process.env.ADMIN_EMAILS = ["discord", "google", "patreon", "legacy", "verify"].map((name) => `victim-${name}@example.com`).join(",");
  return port;
});

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ port: fakePort });
});
afterAll(() => fake.stop());

const FLOW = {
  google: { start: googleStart, startPath: "/api/google/auth", callback: googleCallback },
  discord: { start: discordStart, startPath: "/api/discord/auth", callback: discordCallback },
  // GET /api/auth/login starts the support-platform sign-in.
  patreon: { start: loginRoute, startPath: "/api/auth/login", callback: patreonCallback },
} as const;

const COLUMN = { google: "googleId", discord: "discordId", patreon: "patreonId" } as const;

function setCookiePairs(response: Response): string[] {
  return response.headers.getSetCookie().map((value) => value.split(";")[0]!);
}

function sessionPair(response: Response): string | undefined {
  return setCookiePairs(response).find((pair) => pair.startsWith("__session="));
}

/** A browser going through the provider's consent page as `user`; answers the provider's redirect back to us. */
async function providerRedirect(provider: FakeProvider, user: FakeUser, cookie?: string): Promise<Response> {
  const flow = FLOW[provider];
  const start = await callRoute(flow.start, { path: flow.startPath, cookie });
  const authorize = new URL(start.headers.get("Location")!);
  const consent = new URLSearchParams(authorize.searchParams);
  consent.set("decision", "allow");
  consent.set("user_id", user.id);
  consent.set("email", user.email ?? "");
  if (user.emailVerified) consent.set("email_verified", "on");
  consent.set("name", user.name);
  const granted = await fetch(`${fake.url}/${provider}/authorize`, { method: "POST", body: consent, redirect: "manual" });
  const back = new URL(granted.headers.get("Location")!);
  const cookies = [cookie, ...setCookiePairs(start)].filter(Boolean).join("; ");
  return callRoute(flow.callback, { path: back.pathname + back.search, cookie: cookies });
}

/** A visitor's provider sign-in up to its session cookie (the /auth/callback page's exchange). */
async function signInWith(provider: FakeProvider, user: FakeUser): Promise<string> {
  const redirect = await providerRedirect(provider, user);
  const location = new URL(redirect.headers.get("Location")!, "http://localhost:3999");
  const code = location.searchParams.get("code");
  expect(code, `sign-in refused: ${location.search}`).toBeTruthy();
  const exchanged = await callRoute(callbackApi, { method: "POST", path: "/api/auth/callback", json: { code }, cookie: setCookiePairs(redirect).join("; ") });
  expect(exchanged.status).toBe(200);
  return sessionPair(exchanged)!;
}

async function post(route: Parameters<typeof callRoute>[0], path: string, json?: unknown, cookie?: string) {
  return callRoute(route, { method: "POST", path, json, cookie });
}

async function whoIs(cookie: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await callRoute(userRoute, { path: "/api/auth/user", cookie });
  return { status: response.status, body: await readJsonBody(response) };
}

/** Signs up with email and password; answers the session cookie and the code mailed to the address. */
async function register(email: string): Promise<{ cookie: string; code: string }> {
  const response = await post(registerRoute, "/api/auth/register", { email, password: "Squatter123" });
  expect(response.status).toBe(201);
  return { cookie: sessionPair(response)!, code: await mail().nextCodeFor(email) };
}

/** The real owner: a reset code from their mailbox, a new password, then a password login. */
async function ownerResetsAndLogsIn(email: string): Promise<string> {
  expect((await post(forgotRoute, "/api/auth/forgot-password", { email })).status).toBe(200);
  const code = await mail().nextCodeFor(email);
  const reset = await post(resetRoute, "/api/auth/reset-password", { email, code, newPassword: "Owner1234!" });
  expect(reset.status).toBe(200);
  const login = await post(loginRoute, "/api/auth/login", { email, password: "Owner1234!" });
  expect(login.status).toBe(200);
  return sessionPair(login)!;
}

/** The rows that let someone into the account, or that its linking steps write. */
async function attachments(userId: string) {
  const [user, shopEmails, subscription, apiTokens, sessions, codes] = await Promise.all([
    db.user.findUniqueOrThrow({ where: { id: userId } }),
    db.shopEmail.findMany({ where: { userId }, orderBy: { email: "asc" } }),
    db.updateSubscription.findUnique({ where: { userId } }),
    db.apiToken.findMany({ where: { userId } }),
    db.session.findMany({ where: { userId }, orderBy: { id: "asc" } }),
    db.verification.findMany({ where: { OR: [{ userId }, { target: { startsWith: `${userId}:` } }] }, orderBy: { id: "asc" } }),
  ]);
  return { user, shopEmails, subscription, apiTokens, sessions, codes };
}

describe.each(["discord", "google", "patreon"] as const)("the takeover of an unproven address through %s", (provider) => {
  it("the squatter cannot link their identity, so the real owner's account stays the owner's", async () => {
    const victim = `victim-${provider}@example.com`;
    const attacker: FakeUser = { id: `${provider}-attacker`, email: `attacker-${provider}@example.com`, emailVerified: true, name: "Attacker" };

    // 1. The attacker signs up with the victim's address: unverified, but signed in.
    const { cookie: attackerCookie } = await register(victim);
    const squatted = await db.user.findUniqueOrThrow({ where: { email: victim } });
    expect(squatted).toMatchObject({ mailVerified: false, emailVerifiedBy: null });

    // 2. Signed in, they link their own provider identity: refused, and nothing is written.
    const before = await attachments(squatted.id);
    const linked = await providerRedirect(provider, attacker, attackerCookie);
    expect(linked.status).toBe(302);
    expect(linked.headers.get("Location")).toBe("/auth/callback?error=email_unproven");
    expect(await attachments(squatted.id)).toEqual(before);
    expect(await db.user.count({ where: { [COLUMN[provider]]: attacker.id } })).toBe(0);

    // 3. The real owner resets the password with the mailed code and signs in.
    const ownerCookie = await ownerResetsAndLogsIn(victim);
    const owner = await whoIs(ownerCookie);
    expect(owner.body).toMatchObject({ id: squatted.id, email: victim, mailVerified: true, canBeAdmin: true });
    expect((await whoIs(attackerCookie)).status).toBe(401);

    // 4. The attacker's identity signs in to an account of its own, never the owner's, and gets no admin rights.
    const attackerSession = await signInWith(provider, attacker);
    const intruder = await whoIs(attackerSession);
    expect(intruder.status).toBe(200);
    expect(intruder.body.id).not.toBe(squatted.id);
    expect(intruder.body).toMatchObject({ email: attacker.email, canBeAdmin: false, isAdmin: false });
    const toggle = await post(toggleAdminRoute, "/api/auth/toggle-admin", undefined, attackerSession);
    expect(toggle.status).toBe(403);
    expect(await db.user.findUniqueOrThrow({ where: { id: squatted.id } })).toMatchObject({ [COLUMN[provider]]: null, isAdmin: false });
  });
});

describe("what was attached before the first proof goes with it", () => {
  /** An unproven account holding what older versions of the site let it attach. */
  async function squattedWithEverything(email: string, tag: string) {
    const { cookie, code } = await register(email);
    const account = await db.user.findUniqueOrThrow({ where: { email } });
    await db.user.update({
      where: { id: account.id },
      data: { discordId: `${tag}-d`, discordTag: `${tag}#1`, googleId: `${tag}-g`, patreonId: `${tag}-p`, currentTierId: "8825009" },
    });
    await db.shopEmail.create({
      data: { userId: account.id, email: `${tag}-shop@example.com`, verifiedEmail: `${tag}-shop@example.com`, verifiedAt: new Date() },
    });
    await db.shopEmail.create({ data: { userId: account.id, email: `${tag}-pending@example.com` } });
    await db.verification.create({
      data: {
        purpose: "SHOP_EMAIL",
        target: `${account.id}:${tag}-pending@example.com`,
        userId: account.id,
        codeHash: "x",
        expiresAt: new Date(Date.now() + 600_000),
      },
    });
    const feedToken = `${tag}-feed-token-${"x".repeat(32)}`;
    await db.updateSubscription.create({
      data: { userId: account.id, unsubscribeToken: `${tag}-unsubscribe`, feedTokenHash: hashToken(feedToken), feedTokenCreatedAt: new Date() },
    });
    await db.apiToken.create({ data: { userId: account.id, tokenHash: hashToken(`${tag}-api-token`) } });
    const otherSession = await sessionCookie(account.id);
    return { account, cookie, code, otherSession, feedToken, apiToken: `${tag}-api-token` };
  }

  async function expectNothingLeft(userId: string) {
    const left = await attachments(userId);
    expect(left.user).toMatchObject({
      discordId: null,
      discordTag: null,
      googleId: null,
      patreonId: null,
      currentTierId: null,
      emailVerifiedBy: "CODE",
      mailVerified: true,
    });
    expect(left.shopEmails).toEqual([]);
    expect(left.subscription?.feedTokenHash ?? null).toBeNull();
    expect(left.apiTokens).toEqual([]);
    expect(left.codes.filter((code) => code.purpose === "SHOP_EMAIL" || code.purpose === "LOGIN_CODE")).toEqual([]);
    expect(await db.auditEntry.count({ where: { action: "user.email.proven", targetId: userId } })).toBe(1);
  }

  it("a password reset by mailed code: identities, shop emails, feed link, API tokens and sessions end", async () => {
    const email = "victim-legacy@example.com";
    const { account, cookie, otherSession, feedToken, apiToken } = await squattedWithEverything(email, "legacy");

    const ownerCookie = await ownerResetsAndLogsIn(email);
    await expectNothingLeft(account.id);
    for (const dead of [cookie, otherSession]) expect((await whoIs(dead)).status).toBe(401);
    expect((await callRoute(userRoute, { path: "/api/auth/user", headers: { Authorization: `Bearer ${apiToken}` } })).status).toBe(401);
    expect((await callRoute(feedRoute, { path: `/feeds/${feedToken}.atom`, params: { token: feedToken } })).status).toBe(404);
    expect((await whoIs(ownerCookie)).body).toMatchObject({ id: account.id, canBeAdmin: true, hasDiscord: false, hasGoogle: false, hasPatreon: false });

    // The identity once linked signs in to an account of its own.
    const discordSession = await signInWith("discord", { id: "legacy-d", email: null, name: "Legacy" });
    expect((await whoIs(discordSession)).body.id).not.toBe(account.id);
  });

  it("the sign-up code on the account page: the same, and this browser goes on in a fresh session", async () => {
    const email = "victim-verify@example.com";
    const { account, cookie, code, otherSession } = await squattedWithEverything(email, "verify");
    const verified = await callRoute(loginPage, { method: "POST", path: "/login", form: { intent: "verify-email", username: "Owner", code }, cookie });
    expect(verified.status).toBe(302);
    const fresh = sessionPair(verified);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(cookie);
    await expectNothingLeft(account.id);
    for (const dead of [cookie, otherSession]) expect((await whoIs(dead)).status).toBe(401);
    expect((await whoIs(fresh!)).body).toMatchObject({ id: account.id, mailVerified: true, canBeAdmin: true, fullName: "Owner" });
    expect(await db.session.count({ where: { userId: account.id } })).toBe(1);
  });

  it("POST /api/auth/verify-email renews the session of a browser signed in to the account, and signs nobody else in", async () => {
    const { cookie: signedIn, code } = await register("api-verify@example.com");
    const verified = await post(verifyRoute, "/api/auth/verify-email", { email: "api-verify@example.com", code }, signedIn);
    expect(verified.status).toBe(200);
    const fresh = sessionPair(verified)!;
    expect((await whoIs(signedIn)).status).toBe(401);
    expect((await whoIs(fresh)).body).toMatchObject({ email: "api-verify@example.com", mailVerified: true });

    const { cookie: ownCookie, code: code2 } = await register("api-verify2@example.com");
    // Someone else's session (or none) gets no session of this account.
    const stranger = await sessionCookie((await createTestUser()).id);
    const other = await post(verifyRoute, "/api/auth/verify-email", { email: "api-verify2@example.com", code: code2 }, stranger);
    expect(other.status).toBe(200);
    expect(sessionPair(other)).toBeUndefined();
    expect((await whoIs(stranger)).status).toBe(200);
    expect((await whoIs(ownCookie)).status).toBe(401);
  });

  it("a reset on an account whose address was already proven changes nothing attached", async () => {
    const proven = await createTestUser({ discordId: "proven-d", googleId: "proven-g" });
    await db.shopEmail.create({
      data: { userId: proven.id, email: "proven-shop@example.com", verifiedEmail: "proven-shop@example.com", verifiedAt: new Date() },
    });
    await ownerResetsAndLogsIn(proven.email!);
    expect(await db.user.findUniqueOrThrow({ where: { id: proven.id } })).toMatchObject({
      discordId: "proven-d",
      googleId: "proven-g",
      emailVerifiedBy: "CODE",
    });
    expect(await db.shopEmail.count({ where: { userId: proven.id } })).toBe(1);
    expect(await db.auditEntry.count({ where: { action: "user.email.proven", targetId: proven.id } })).toBe(0);
  });
});

describe("refused while the address is unproven, leaving the database unchanged", () => {
  it("shop emails through /api/kofi/* and the account page, and the feed link", async () => {
    const account = await createTestUser({ email: "refused@example.com", mailVerified: false });
    const cookie = await sessionCookie(account.id);
    const before = await attachments(account.id);

    for (const [route, path, json] of [
      [kofiLink, "/api/kofi/link", { email: "buyer@example.com" }],
      [kofiVerify, "/api/kofi/verify-email", { email: "buyer@example.com", code: "123456" }],
      [kofiResend, "/api/kofi/resend-verification", { email: "buyer@example.com" }],
    ] as const) {
      const response = await post(route, path, json, cookie);
      expect(response.status, path).toBe(403);
      expect(await readJsonBody(response)).toEqual({ error: UNPROVEN });
    }
    // Dropping a pending address is still allowed (there is none here).
    expect((await post(kofiCancel, "/api/kofi/cancel-verification", { email: "buyer@example.com" }, cookie)).status).toBe(404);

    const form = await callRoute(shopEmailForm, { method: "POST", path: "/account/shop-email", form: { intent: "link", email: "buyer@example.com" }, cookie });
    expect(form.status).toBe(302);
    const { getToast } = await import("~/toast.server");
    const { toast } = await getToast(new Request("http://localhost:3999/login", { headers: { Cookie: setCookiePairs(form).join("; ") } }));
    expect(toast).toMatchObject({ type: "error", message: UNPROVEN });

    const feed = await callRoute(notificationsPage, { method: "POST", path: "/account/notifications", form: { intent: "feed" }, cookie });
    expect(feed.status).toBe(403);
    expect(await readJsonBody(feed)).toMatchObject({ ok: false, message: UNPROVEN });

    expect(await attachments(account.id)).toEqual(before);
    expect(mail().messages.some((message) => message.to.includes("buyer@example.com"))).toBe(false);
  });

  it("a provider link, also when the provider asserts the account's own address", async () => {
    const { signInWithProvider } = await import("~/models/provider-account.server");
    const account = await createTestUser({ email: "refused-link@example.com", mailVerified: true, emailVerifiedBy: null });
    const before = await attachments(account.id);
    const profile: ProviderProfile = { provider: "google", id: "refused-link-g", email: "refused-link@example.com", emailVerified: true, name: "G" };
    await expect(signInWithProvider(profile, account)).rejects.toMatchObject({ status: 403, message: UNPROVEN, code: "email_unproven" });
    expect(await attachments(account.id)).toEqual(before);
  });

  it("accounts whose address is proven, or that have none, still link", async () => {
    const { signInWithProvider } = await import("~/models/provider-account.server");
    // Created by a provider that vouched for the address, before its username step.
    const created = await createTestUser({ mailVerified: false, password: null, signUpMethod: "GOOGLE", emailVerifiedBy: "GOOGLE", googleId: "created-g" });
    const discord: ProviderProfile = { provider: "discord", id: "created-d", email: null, emailVerified: false, name: "D", discordTag: "d#1" };
    expect(await signInWithProvider(discord, created)).toMatchObject({ discordId: "created-d", emailVerifiedBy: "GOOGLE", mailVerified: false });
    // A chat-community account that came without an address.
    const noEmail = await createTestUser({
      email: null,
      mailVerified: true,
      emailVerifiedBy: null,
      password: null,
      signUpMethod: "DISCORD",
      discordId: "no-email-d",
    });
    const cookie = await sessionCookie(noEmail.id);
    const feed = await callRoute(notificationsPage, { method: "POST", path: "/account/notifications", form: { intent: "feed" }, cookie });
    expect(feed.status).toBe(200);
    expect((await post(kofiLink, "/api/kofi/link", { email: "noemail-buyer@example.com" }, cookie)).status).toBe(200);
  });
});
