// Provider sign-in against the fake providers (a real HTTP server speaking OAuth 2.0): redirect,
// authorize, callback with state and PKCE, one-time login code, account creation and linking.
import { once } from "node:events";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { getToast } from "remix-toast";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ArcticFetchError, OAuth2RequestError, UnexpectedResponseError } from "arctic";
import { db } from "~/db.server";
import { ProviderError, providerFailureCode, SignInStateError } from "~/integrations/oauth.server";
import * as callbackApi from "~/routes/api.auth.callback";
import * as registerRoute from "~/routes/api.auth.register";
import * as toggleAdminRoute from "~/routes/api.auth.toggle-admin";
import * as updateUsernameRoute from "~/routes/api.auth.update-username";
import * as verifyRoute from "~/routes/api.auth.verify-email";
import * as patreonStart from "~/routes/api.auth.login";
import * as patreonCallback from "~/routes/api.auth.patreon-callback";
import * as userRoute from "~/routes/api.auth.user";
import * as discordStart from "~/routes/api.discord.auth";
import * as discordCallback from "~/routes/api.discord.callback";
import * as setUsernameDiscord from "~/routes/api.discord.set-username-discord";
import * as googleStart from "~/routes/api.google.auth";
import * as googleCallback from "~/routes/api.google.callback";
import { fakeProviderEnv, startFakeProviders, type FakeProvider, type FakeProviders, type FakeUser } from "../scripts/fake-providers";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";
import { setEnv } from "./env";

const mail = useMailCapture();

// The configuration is read once per process, so the fake's address is fixed before any import.
// A port below the kernel's range for outgoing connections (scripts/app-server.ts freePort): one
// picked inside it was once taken by another test's connection before the fake could listen.
const fakePort = await vi.hoisted(async () => {
  const { freePort } = await import("../scripts/app-server");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  for (const provider of ["GOOGLE", "DISCORD", "PATREON"]) {
    const lower = provider.toLowerCase();
    process.env[`${provider}_CLIENT_ID`] = `fake-${lower}-client`;
    process.env[`${provider}_CLIENT_SECRET`] = `fake-${lower}-secret`;
    process.env[`${provider}_AUTHORIZE_URL`] = `${url}/${lower}/authorize`;
    process.env[`${provider}_TOKEN_URL`] = `${url}/${lower}/token`;
  }
  process.env.GOOGLE_USERINFO_URL = `${url}/google/userinfo`;
  process.env.DISCORD_API_URL = `${url}/discord`;
  process.env.PATREON_API_URL = `${url}/patreon`;
  return port;
});

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ port: fakePort });
  // Guard against the hoisted settings and the helper drifting apart.
  for (const [key, value] of Object.entries(fakeProviderEnv(fake.url))) {
    if (key !== "FAKE_PROVIDERS_URL") expect(process.env[key]).toBe(value);
  }
});
afterAll(() => fake.stop());

const ROUTES = {
  google: { start: googleStart, startPath: "/api/google/auth", callback: googleCallback, callbackPath: "/api/google/callback" },
  discord: { start: discordStart, startPath: "/api/discord/auth", callback: discordCallback, callbackPath: "/api/discord/callback" },
  patreon: { start: patreonStart, startPath: "/api/auth/login", callback: patreonCallback, callbackPath: "/api/auth/patreon-callback" },
} as const;

function cookiePairs(response: Response): string[] {
  return response.headers.getSetCookie().map((value) => value.split(";")[0]!);
}

/** Runs a provider flow up to the redirect to /auth/callback; answers that response and the cookies. */
async function runProviderFlow(provider: FakeProvider, user: FakeUser | null, { cookie, decision = "allow" }: { cookie?: string; decision?: string } = {}) {
  const routes = ROUTES[provider];
  const start = await callRoute(routes.start, { path: routes.startPath, cookie });
  expect(start.status).toBe(302);
  const authorizeUrl = new URL(start.headers.get("Location")!);
  expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${fake.url}/${provider}/authorize`);
  expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`http://localhost:3999${routes.callbackPath}`);
  const stateCookie = cookiePairs(start);

  const page = await fetch(authorizeUrl);
  expect(await page.text()).toContain("Authorize");
  const form = new URLSearchParams(authorizeUrl.searchParams);
  form.set("decision", decision);
  if (user) {
    form.set("user_id", user.id);
    form.set("email", user.email ?? "");
    if (user.emailVerified) form.set("email_verified", "on");
    form.set("name", user.name);
    if (user.tierId) form.set("tier_id", user.tierId);
  }
  const authorized = await fetch(`${fake.url}/${provider}/authorize`, { method: "POST", body: form, redirect: "manual" });
  expect(authorized.status).toBe(302);
  const back = new URL(authorized.headers.get("Location")!);
  const cookies = [cookie, ...stateCookie].filter(Boolean).join("; ");
  const callback = await callRoute(routes.callback, { path: back.pathname + back.search, cookie: cookies });
  return { callback, cookies };
}

/** A provider's redirect back to someone signed in: the link is made there, then /login. */
function expectLinkedInPlace(callback: Response) {
  expect(callback.status).toBe(302);
  expect(callback.headers.get("Location")).toBe("/login");
}

/** Follows /auth/callback like the page does: POST the code with the browser's cookies. */
async function exchange(callback: Response, extraCookie?: string) {
  expect(callback.status).toBe(302);
  const location = new URL(callback.headers.get("Location")!, "http://localhost:3999");
  expect(location.pathname).toBe("/auth/callback");
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`no code: ${location.search}`);
  const cookie = [extraCookie, ...cookiePairs(callback)].filter(Boolean).join("; ");
  const response = await callRoute(callbackApi, { method: "POST", path: "/api/auth/callback", json: { code }, cookie });
  return { response, code, cookie };
}

async function currentUser(response: Response) {
  const session = cookiePairs(response).find((pair) => pair.startsWith("__session="));
  const me = await callRoute(userRoute, { path: "/api/auth/user", cookie: session });
  return readJsonBody(me);
}

describe.each(["google", "discord"] as const)("%s sign-in", (provider) => {
  it("creates an unverified account that a username verifies", async () => {
    const { callback } = await runProviderFlow(provider, {
      id: `${provider}-new-1`,
      email: `${provider}new@example.com`,
      emailVerified: true,
      name: "New Person",
    });
    const { response } = await exchange(callback);
    expect(response.status).toBe(200);
    expect(await response.clone().json()).toEqual({ message: "Logged in successfully." });
    const me = await currentUser(response);
    expect(me).toMatchObject({
      email: `${provider}new@example.com`,
      mailVerified: false,
      hasPassword: false,
      [provider === "google" ? "hasGoogle" : "hasDiscord"]: true,
    });
    const column = provider === "google" ? "googleId" : "discordId";
    expect(await db.user.count({ where: { [column]: `${provider}-new-1` } })).toBe(1);

    // Signing in again finds the same account, keyed on the provider's id.
    const again = await exchange(
      (await runProviderFlow(provider, { id: `${provider}-new-1`, email: `${provider}new@example.com`, emailVerified: true, name: "New Person" })).callback,
    );
    expect((await currentUser(again.response)).id).toBe(me.id);
    expect(await db.user.count({ where: { [column]: `${provider}-new-1` } })).toBe(1);
  });

  it("links to the existing account with the same verified email", async () => {
    const existing = await createTestUser({ email: `${provider}link@example.com` });
    const { callback } = await runProviderFlow(provider, { id: `${provider}-link`, email: `${provider}LINK@example.com`, emailVerified: true, name: "Linker" });
    const { response } = await exchange(callback);
    expect((await currentUser(response)).id).toBe(existing.id);
    expect(await db.user.count({ where: { email: `${provider}link@example.com` } })).toBe(1);
  });
});

describe("support platform sign-in", () => {
  it("sends credentials in the body, stores patreonId and the entitled tier", async () => {
    const { callback } = await runProviderFlow("patreon", {
      id: "patreon-77",
      email: "patron@example.com",
      emailVerified: true,
      name: "Pat Ron",
      tierId: "8825009",
    });
    const { response } = await exchange(callback);
    const me = await currentUser(response);
    expect(me).toMatchObject({ hasPatreon: true, current_tier: "8825009", fullName: "Pat Ron", mailVerified: true });
    expect(fake.tokenRequests.filter((request) => request.provider === "patreon").every((request) => request.clientAuth === "body")).toBe(true);
    expect(fake.tokenRequests.some((request) => request.provider === "google" && request.clientAuth === "basic" && request.usedPkce)).toBe(true);
  });

  it("a logged-in user who goes through the flow gets the provider linked", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const { callback } = await runProviderFlow(
      "patreon",
      { id: "patreon-88", email: "other@example.com", emailVerified: true, name: "Other", tierId: null },
      { cookie },
    );
    // The session stays; no login code is left to exchange, and the toast says what happened.
    expect(callback.status).toBe(302);
    expect(callback.headers.get("Location")).toBe("/login");
    expect(cookiePairs(callback).some((pair) => pair.startsWith("__session="))).toBe(false);
    const { toast } = await getToast(new Request("http://localhost:3999/login", { headers: { Cookie: cookiePairs(callback).join("; ") } }));
    expect(toast?.message).toBe("Patreon account linked.");
    // The one-time code was spent in place: none is left to exchange.
    expect(await db.verification.count({ where: { purpose: "LOGIN_CODE", userId: user.id } })).toBe(0);
    expect(await db.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({ patreonId: "patreon-88", currentTierId: null });
  });
});

describe("login codes and failures", () => {
  it("the code is single use and needs the browser's cookie (403 otherwise)", async () => {
    const { callback } = await runProviderFlow("google", { id: "g-code", email: "gcode@example.com", emailVerified: true, name: "Code" });
    const location = new URL(callback.headers.get("Location")!, "http://localhost:3999");
    const code = location.searchParams.get("code")!;
    const withoutCookie = await callRoute(callbackApi, { method: "POST", path: "/api/auth/callback", json: { code } });
    expect(withoutCookie.status).toBe(403);
    expect((await readJsonBody(withoutCookie)).error).toMatch(/cookie/i);
    const first = await exchange(callback);
    expect(first.response.status).toBe(200);
    const second = await callRoute(callbackApi, { method: "POST", path: "/api/auth/callback", json: { code }, cookie: first.cookie });
    expect(second.status).toBe(400);
    expect(await readJsonBody(second)).toEqual({ error: "Invalid or expired login code. Please try logging in again." });
  });

  it("a callback without the state cookie or with a denied grant goes to /auth/callback with an error", async () => {
    const denied = await runProviderFlow("discord", null, { decision: "deny" });
    expect(denied.callback.headers.get("Location")).toBe("/auth/callback?error=access_denied");

    const forged = await callRoute(googleCallback, { path: "/api/google/callback?code=abc&state=xyz" });
    expect(forged.status).toBe(302);
    expect(forged.headers.get("Location")).toBe("/auth/callback?error=state_mismatch");
  });

  it("a provider that takes the connection and never answers fails the sign-in with provider_error instead of holding it", async () => {
    // Accepts every connection and says nothing, as a frozen host or a dropped network does.
    const held = new Set<Socket>();
    const silent = createServer((socket) => {
      held.add(socket);
      socket.once("close", () => held.delete(socket));
    }).listen(0, "127.0.0.1");
    await once(silent, "listening");
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const saved = ["PROVIDER_TIMEOUT_MS", "GOOGLE_TOKEN_URL", "DISCORD_API_URL", "PATREON_TOKEN_URL"].map((name) => [name, process.env[name]] as const);
    try {
      setEnv("PROVIDER_TIMEOUT_MS", "300");
      // Google's token call (arctic's own request), Discord's profile call, Patreon's token call.
      setEnv("GOOGLE_TOKEN_URL", `${silentUrl}/token`);
      setEnv("DISCORD_API_URL", `${silentUrl}/discord`);
      setEnv("PATREON_TOKEN_URL", `${silentUrl}/token`);
      for (const provider of ["google", "discord", "patreon"] as const) {
        const { callback } = await runProviderFlow(provider, {
          id: `${provider}-silent`,
          email: `${provider}-silent@example.com`,
          emailVerified: true,
          name: "S",
        });
        expect(callback.status).toBe(302);
        expect(callback.headers.get("Location")).toBe("/auth/callback?error=provider_error");
      }
      expect(await db.user.count({ where: { email: { endsWith: "-silent@example.com" } } })).toBe(0);
    } finally {
      for (const [name, value] of saved) setEnv(name, value);
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a callback from the browser that started it but without a code is the provider's failure, not blocked cookies", async () => {
    const start = await callRoute(googleStart, { path: "/api/google/auth" });
    const state = new URL(start.headers.get("Location")!).searchParams.get("state")!;
    const cookie = cookiePairs(start).join("; ");
    const noCode = await callRoute(googleCallback, { path: `/api/google/callback?state=${state}`, cookie });
    expect(noCode.headers.get("Location")).toBe("/auth/callback?error=provider_error");
    // A code the provider does not know: its token endpoint refuses (invalid_grant).
    const unknownCode = await callRoute(googleCallback, { path: `/api/google/callback?state=${state}&code=not-a-grant`, cookie });
    expect(unknownCode.headers.get("Location")).toBe("/auth/callback?error=provider_error");
    // Another sign-in's state, with this browser's cookie, is still a mismatch.
    const otherState = await callRoute(googleCallback, { path: "/api/google/callback?state=somebody-elses&code=abc", cookie });
    expect(otherState.headers.get("Location")).toBe("/auth/callback?error=state_mismatch");
  });

  it("a failure of our own in the callback is thrown (a logged 500), never shown as a sign-in error", async () => {
    // PostgreSQL text cannot hold NUL: looking up this verified email fails in the database.
    await expect(runProviderFlow("google", { id: "g-nul", email: "nul\u0000@example.com", emailVerified: true, name: "Nul" })).rejects.toThrow(
      /invalid byte sequence/,
    );
    expect(await db.user.count({ where: { googleId: "g-nul" } })).toBe(0);
  });

  it("classifies by the libraries' error types: a ReferenceError or RangeError of a bug is no cookie problem", () => {
    expect(providerFailureCode(new SignInStateError())).toBe("state_mismatch");
    expect(providerFailureCode(new OAuth2RequestError("access_denied", null, null, "s"))).toBe("access_denied");
    expect(providerFailureCode(new OAuth2RequestError("invalid_grant", null, null, null))).toBe("provider_error");
    expect(providerFailureCode(new ArcticFetchError(new TypeError("fetch failed")))).toBe("provider_error");
    expect(providerFailureCode(new UnexpectedResponseError(502))).toBe("provider_error");
    expect(providerFailureCode(new ProviderError("profile has no sub"))).toBe("provider_error");
    for (const bug of [
      new ReferenceError("profile is not defined"),
      new RangeError("Invalid time value"),
      new TypeError("x is undefined"),
      new Error("boom"),
    ]) {
      expect(providerFailureCode(bug)).toBeNull();
    }
  });

  it("set-username-discord verifies a new discord account", async () => {
    const { callback } = await runProviderFlow("discord", { id: "d-name", email: null, name: "Nameless" });
    const { response } = await exchange(callback);
    const session = cookiePairs(response).find((pair) => pair.startsWith("__session="))!;
    const set = await callRoute(setUsernameDiscord, {
      method: "POST",
      path: "/api/discord/set-username-discord",
      json: { username: "Gamer" },
      cookie: session,
    });
    expect(await readJsonBody(set)).toMatchObject({ message: "Username set successfully! Your account is now verified.", mailVerified: true });
    expect(await db.user.findFirstOrThrow({ where: { discordId: "d-name" } })).toMatchObject({ fullName: "Gamer", mailVerified: true, discordTag: "nameless" });
  });
});

// An address counts as verified only through a code mailed to it or a
// provider asserting it; linking a provider never verifies anything; the proven owner wins.
describe("email verification cannot be skipped", () => {
  async function register(email: string) {
    const response = await callRoute(registerRoute, { method: "POST", path: "/api/auth/register", json: { email, password: "Squatter123" } });
    expect(response.status).toBe(201);
    return cookiePairs(response).find((pair) => pair.startsWith("__session="))!;
  }

  it("a squatter's linked provider and username verify nothing; the verified owner takes the address back", async () => {
    const { env } = await import("~/env.server");
    env().ADMIN_EMAILS.push("owner@example.com");
    const squatterCookie = await register("owner@example.com");
    const squatter = await db.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });

    // Signed in, the squatter tries to link their own Google identity: refused while the address is unproven.
    const { callback } = await runProviderFlow(
      "google",
      { id: "g-squatter", email: "squatter@example.com", emailVerified: true, name: "Squatter" },
      { cookie: squatterCookie },
    );
    expect(callback.headers.get("Location")).toBe("/auth/callback?error=email_unproven");
    expect(await db.user.findUniqueOrThrow({ where: { id: squatter.id } })).toMatchObject({ googleId: null, mailVerified: false, emailVerifiedBy: null });

    const renamed = await callRoute(updateUsernameRoute, {
      method: "POST",
      path: "/api/auth/update-username",
      json: { username: "Owner" },
      cookie: squatterCookie,
    });
    expect(await readJsonBody(renamed)).toMatchObject({ mailVerified: false });
    expect(await db.user.findUniqueOrThrow({ where: { id: squatter.id } })).toMatchObject({ mailVerified: false, canBeAdmin: false });
    expect((await callRoute(toggleAdminRoute, { method: "POST", path: "/api/auth/toggle-admin", cookie: squatterCookie })).status).toBe(403);

    // The real owner signs in with Discord, which asserts owner@example.com as verified.
    const owner = await exchange(
      (await runProviderFlow("discord", { id: "d-owner", email: "owner@example.com", emailVerified: true, name: "Real Owner" })).callback,
    );
    const me = await currentUser(owner.response);
    expect(me.id).not.toBe(squatter.id);
    expect(me).toMatchObject({ email: "owner@example.com", hasDiscord: true, hasGoogle: false, hasPassword: false, canBeAdmin: false });
    // The squatter lost the address and every session; nothing of theirs was merged.
    expect(await db.user.findUniqueOrThrow({ where: { id: squatter.id } })).toMatchObject({
      email: null,
      mailVerified: false,
      googleId: null,
      discordId: null,
    });
    expect(await db.session.count({ where: { userId: squatter.id } })).toBe(0);
    expect((await callRoute(userRoute, { path: "/api/auth/user", cookie: squatterCookie })).status).toBe(401);
    // The owner's username step verifies (Discord created the account with its verified email).
    const ownerSession = cookiePairs(owner.response).find((pair) => pair.startsWith("__session="))!;
    const set = await callRoute(setUsernameDiscord, {
      method: "POST",
      path: "/api/discord/set-username-discord",
      json: { username: "Owner" },
      cookie: ownerSession,
    });
    expect(await readJsonBody(set)).toMatchObject({ mailVerified: true });
    expect(await db.user.findUniqueOrThrow({ where: { id: String(me.id) } })).toMatchObject({
      mailVerified: true,
      emailVerifiedBy: "DISCORD",
      canBeAdmin: true,
    });
  });

  it("a provider asserting the account's own unverified email neither links nor verifies: the code does", async () => {
    const cookie = await register("linker@example.com");
    const patreon = { id: "p-linker", email: "linker@example.com", emailVerified: true, name: "Linker", tierId: null };
    const refused = await runProviderFlow("patreon", patreon, { cookie });
    expect(refused.callback.headers.get("Location")).toBe("/auth/callback?error=email_unproven");
    const account = await db.user.findUniqueOrThrow({ where: { email: "linker@example.com" } });
    expect(account).toMatchObject({ patreonId: null, mailVerified: false, emailVerifiedBy: null });
    const code = await mail().nextCodeFor("linker@example.com");
    const verified = await callRoute(verifyRoute, { method: "POST", path: "/api/auth/verify-email", json: { email: "linker@example.com", code }, cookie });
    expect(verified.status).toBe(200);
    expect(await db.user.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({ mailVerified: true, emailVerifiedBy: "CODE" });
    // The proof renewed this browser's session; linking now works and keeps the code's proof.
    const renewed = cookiePairs(verified).find((pair) => pair.startsWith("__session="))!;
    expectLinkedInPlace((await runProviderFlow("patreon", patreon, { cookie: renewed })).callback);
    expect(await db.user.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({
      patreonId: "p-linker",
      mailVerified: true,
      emailVerifiedBy: "CODE",
    });
  });

  it("a provider sign-in links into an account whose address is proven, never into an unproven one", async () => {
    const proven = await createTestUser({ email: "proven@example.com" });
    const signedIn = await exchange(
      (await runProviderFlow("google", { id: "g-proven", email: "proven@example.com", emailVerified: true, name: "P" })).callback,
    );
    expect((await currentUser(signedIn.response)).id).toBe(proven.id);
    // An address the provider does not vouch for neither links nor evicts.
    const unproven = await createTestUser({ email: "unproven@example.com", mailVerified: false });
    const other = await exchange(
      (await runProviderFlow("google", { id: "g-unproven", email: "unproven@example.com", emailVerified: false, name: "U" })).callback,
    );
    expect(await currentUser(other.response)).toMatchObject({ email: null });
    expect(await db.user.findUniqueOrThrow({ where: { id: unproven.id } })).toMatchObject({ email: "unproven@example.com", googleId: null });
  });
});
