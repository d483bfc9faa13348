// Email accounts end to end through the `/api` routes, the real database and a real SMTP
// capture server: the codes are read from the received mails.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as changePasswordRoute from "~/routes/api.auth.change-password";
import * as forgotRoute from "~/routes/api.auth.forgot-password";
import * as loginRoute from "~/routes/api.auth.login";
import * as logoutRoute from "~/routes/api.auth.logout";
import * as registerRoute from "~/routes/api.auth.register";
import * as resendRoute from "~/routes/api.auth.resend-verification";
import * as resetRoute from "~/routes/api.auth.reset-password";
import * as setPasswordRoute from "~/routes/api.auth.set-password";
import * as toggleAdminRoute from "~/routes/api.auth.toggle-admin";
import * as updateUsernameRoute from "~/routes/api.auth.update-username";
import * as userRoute from "~/routes/api.auth.user";
import * as verifyRoute from "~/routes/api.auth.verify-email";
import * as setUsernameGoogleRoute from "~/routes/api.google.set-username-google";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();

function cookieOf(response: Response): string {
  const header = response.headers.get("Set-Cookie") ?? "";
  return header.split(";")[0]!;
}

async function post(route: Parameters<typeof callRoute>[0], path: string, json?: unknown, cookie?: string) {
  const response = await callRoute(route, { method: "POST", path, json, cookie });
  return { status: response.status, body: await readJsonBody(response), response };
}

async function ageVerification(email: string, seconds: number) {
  await db.verification.updateMany({ where: { target: email }, data: { lastSentAt: new Date(Date.now() - seconds * 1000) } });
}

describe("sign-up -> mail -> verify -> logout -> login", () => {
  it("runs the whole journey through the API", async () => {
    const email = "newcomer@example.com";
    const register = await post(registerRoute, "/api/auth/register", { email: "NewComer@Example.com", password: "Secret123" });
    expect(register.status).toBe(201);
    expect(register.body.message).toBe("Account created and logged in successfully.");
    const cookie = cookieOf(register.response);
    expect(register.response.headers.get("Set-Cookie")).toMatch(/HttpOnly/i);
    expect(register.response.headers.get("Set-Cookie")).toMatch(/SameSite=Lax/i);

    const me = await callRoute(userRoute, { path: "/api/auth/user", cookie });
    expect(await me.json()).toMatchObject({ email, mailVerified: false, hasPassword: true, isAdmin: false });

    const code = await mail().nextCodeFor(email);
    const wrong = await post(verifyRoute, "/api/auth/verify-email", { email, code: code === "000000" ? "111111" : "000000" });
    expect(wrong).toMatchObject({ status: 400, body: { error: "Invalid verification code." } });
    const verified = await post(verifyRoute, "/api/auth/verify-email", { email, code });
    expect(verified.status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { email } })).mailVerified).toBe(true);
    // Single use.
    expect((await post(verifyRoute, "/api/auth/verify-email", { email, code })).status).toBe(409);

    const logout = await callRoute(logoutRoute, { path: "/api/auth/logout", cookie });
    expect(await logout.json()).toEqual({ message: "Logged out successfully." });
    expect((await callRoute(userRoute, { path: "/api/auth/user", cookie })).status).toBe(401);

    const badLogin = await post(loginRoute, "/api/auth/login", { email, password: "Wrong1234" });
    expect(badLogin).toMatchObject({ status: 401, body: { error: "Invalid email or password." } });
    const login = await post(loginRoute, "/api/auth/login", { email, password: "Secret123" });
    expect(login.status).toBe(200);
    expect(login.body.message).toBe("Logged in successfully.");
    const me2 = await callRoute(userRoute, { path: "/api/auth/user", cookie: cookieOf(login.response) });
    expect(await me2.json()).toMatchObject({ email, mailVerified: true });
  });

  it("validates sign-up input with the spec's words and refuses a taken email", async () => {
    expect(await post(registerRoute, "/api/auth/register", { email: "x@example.com", password: "short" })).toMatchObject({
      status: 400,
      body: { error: "Password must have at least 8 characters and 1 uppercase." },
    });
    expect((await post(registerRoute, "/api/auth/register", { email: "x@example.com", password: "nouppercase1" })).status).toBe(400);
    const user = await createTestUser();
    expect((await post(registerRoute, "/api/auth/register", { email: user.email, password: "Secret123" })).status).toBe(409);
  });

  it("GET /api/auth/user answers 401 JSON for guests", async () => {
    const response = await callRoute(userRoute, { path: "/api/auth/user" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Not authenticated" });
  });
});

describe("codes: expiry, cooldown, attempts", () => {
  it("an expired code is refused", async () => {
    const email = "late@example.com";
    await post(registerRoute, "/api/auth/register", { email, password: "Secret123" });
    const code = await mail().nextCodeFor(email);
    await db.verification.updateMany({ where: { target: email }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await post(verifyRoute, "/api/auth/verify-email", { email, code })).toMatchObject({
      status: 400,
      body: { error: "This code has expired. Please request a new code." },
    });
  });

  it("resend is refused within 60 s, then sends a new working code", async () => {
    const email = "again@example.com";
    await post(registerRoute, "/api/auth/register", { email, password: "Secret123" });
    const first = await mail().nextCodeFor(email);
    const early = await post(resendRoute, "/api/auth/resend-verification", { email });
    expect(early.status).toBe(429);
    expect(String(early.body.error)).toMatch(/^Please wait \d+ seconds before requesting a new code\.$/);
    await ageVerification(email, 61);
    const resent = await post(resendRoute, "/api/auth/resend-verification", { email });
    expect(resent).toMatchObject({ status: 200, body: { message: "Verification code resent to your email." } });
    const second = await mail().nextCodeFor(email);
    if (first !== second) expect((await post(verifyRoute, "/api/auth/verify-email", { email, code: first })).status).toBe(400);
    expect((await post(verifyRoute, "/api/auth/verify-email", { email, code: second })).status).toBe(200);
  });

  it("too many wrong codes lock the code", async () => {
    const email = "guesser@example.com";
    await post(registerRoute, "/api/auth/register", { email, password: "Secret123" });
    const code = await mail().nextCodeFor(email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) await post(verifyRoute, "/api/auth/verify-email", { email, code: wrong });
    expect(await post(verifyRoute, "/api/auth/verify-email", { email, code })).toMatchObject({
      status: 400,
      body: { error: "Too many wrong codes. Please request a new code." },
    });
  });
});

describe("passwords", () => {
  it("forgot + reset: same answer for unknown emails, code from the mail, old sessions end", async () => {
    const user = await createTestUser({ password: "OldPassword1" });
    const cookie = await sessionCookie(user.id);
    const unknown = await post(forgotRoute, "/api/auth/forgot-password", { email: "nobody@example.com" });
    const known = await post(forgotRoute, "/api/auth/forgot-password", { email: user.email });
    expect(unknown.body).toEqual({ message: "If an account exists with that email, a reset code has been sent." });
    expect(known.body).toEqual(unknown.body);
    expect(await post(forgotRoute, "/api/auth/forgot-password", { email: "" })).toMatchObject({ status: 400, body: { error: "Please enter your email." } });
    const code = await mail().nextCodeFor(user.email!);
    expect(mail().messages.some((message) => message.to.includes("nobody@example.com"))).toBe(false);

    expect(await post(resetRoute, "/api/auth/reset-password", { email: user.email, code: "", newPassword: "x" })).toMatchObject({
      status: 400,
      body: { error: "Please fill all fields." },
    });
    expect(await post(resetRoute, "/api/auth/reset-password", { email: user.email, code, newPassword: "NoSpecial1" })).toMatchObject({
      status: 400,
      body: { error: "Password must have at least 8 characters, 1 uppercase, and 1 special character." },
    });
    const reset = await post(resetRoute, "/api/auth/reset-password", { email: user.email, code, newPassword: "NewPassw0rd!" });
    expect(reset.status).toBe(200);
    expect((await callRoute(userRoute, { path: "/api/auth/user", cookie })).status).toBe(401);
    expect((await post(loginRoute, "/api/auth/login", { email: user.email, password: "OldPassword1" })).status).toBe(401);
    expect((await post(loginRoute, "/api/auth/login", { email: user.email, password: "NewPassw0rd!" })).status).toBe(200);
    expect((await post(resetRoute, "/api/auth/reset-password", { email: user.email, code, newPassword: "Another1!x" })).status).toBe(400);
  });

  it("change password needs the current one", async () => {
    const user = await createTestUser({ password: "Current123" });
    const cookie = await sessionCookie(user.id);
    expect(await post(changePasswordRoute, "/api/auth/change-password", { currentPassword: "Wrong1234", newPassword: "Changed123" }, cookie)).toMatchObject({
      status: 400,
      body: { error: "Current password is incorrect." },
    });
    expect((await post(changePasswordRoute, "/api/auth/change-password", { currentPassword: "Current123", newPassword: "weak" }, cookie)).status).toBe(400);
    expect(await post(changePasswordRoute, "/api/auth/change-password", { currentPassword: "Current123", newPassword: "Changed123" }, cookie)).toMatchObject({
      status: 200,
      body: { message: "Password changed successfully." },
    });
    expect((await post(loginRoute, "/api/auth/login", { email: user.email, password: "Changed123" })).status).toBe(200);
    expect((await post(changePasswordRoute, "/api/auth/change-password", { currentPassword: "x", newPassword: "Changed123" })).status).toBe(401);
  });

  it("set password only for accounts without one", async () => {
    const user = await createTestUser({ password: null, googleId: "g-setpw" });
    const cookie = await sessionCookie(user.id);
    expect(await post(setPasswordRoute, "/api/auth/set-password", { newPassword: "FirstPass1" }, cookie)).toMatchObject({
      status: 200,
      body: { message: "Password set successfully." },
    });
    expect((await post(setPasswordRoute, "/api/auth/set-password", { newPassword: "SecondPass1" }, cookie)).status).toBe(409);
    expect((await post(loginRoute, "/api/auth/login", { email: user.email, password: "FirstPass1" })).status).toBe(200);
  });
});

describe("admin mode and usernames", () => {
  it("toggle-admin is refused without canBeAdmin and recorded with it", async () => {
    const plain = await createTestUser();
    const refused = await post(toggleAdminRoute, "/api/auth/toggle-admin", undefined, await sessionCookie(plain.id));
    expect(refused.status).toBe(403);
    expect((await db.user.findUniqueOrThrow({ where: { id: plain.id } })).isAdmin).toBe(false);
    expect((await post(toggleAdminRoute, "/api/auth/toggle-admin")).status).toBe(401);

    const allowed = await createTestUser({ canBeAdmin: true });
    const cookie = await sessionCookie(allowed.id);
    expect((await post(toggleAdminRoute, "/api/auth/toggle-admin", undefined, cookie)).body).toEqual({ isAdmin: true, message: "Admin status updated." });
    expect((await post(toggleAdminRoute, "/api/auth/toggle-admin", undefined, cookie)).body).toMatchObject({ isAdmin: false });
    expect(await db.auditEntry.count({ where: { targetId: allowed.id, action: "user.toggle-admin" } })).toBe(2);
  });

  it("a provider account becomes verified by setting a username; blank is refused", async () => {
    const user = await createTestUser({
      googleId: "g-user-1",
      mailVerified: false,
      fullName: null,
      password: null,
      signUpMethod: "GOOGLE",
      emailVerifiedBy: "GOOGLE",
    });
    const cookie = await sessionCookie(user.id);
    expect(await post(setUsernameGoogleRoute, "/api/google/set-username-google", { username: "   " }, cookie)).toMatchObject({
      status: 400,
      body: { error: "Please enter a valid username." },
    });
    expect(await post(setUsernameGoogleRoute, "/api/google/set-username-google", { username: "Modder" }, cookie)).toMatchObject({
      status: 200,
      body: { message: "Username set successfully! Your account is now verified.", mailVerified: true },
    });
    // update-username renames but never verifies an email account.
    const emailUser = await createTestUser({ mailVerified: false });
    const renamed = await post(updateUsernameRoute, "/api/auth/update-username", { username: "Renamed" }, await sessionCookie(emailUser.id));
    expect(renamed.body).toMatchObject({ fullName: "Renamed", mailVerified: false });
  });

  it("admin emails get canBeAdmin only once verified", async () => {
    const { env } = await import("~/env.server");
    env().ADMIN_EMAILS.push("boss@example.com");
    await post(registerRoute, "/api/auth/register", { email: "boss@example.com", password: "Secret123" });
    expect((await db.user.findUniqueOrThrow({ where: { email: "boss@example.com" } })).canBeAdmin).toBe(false);
    const code = await mail().nextCodeFor("boss@example.com");
    await post(verifyRoute, "/api/auth/verify-email", { email: "boss@example.com", code });
    expect((await db.user.findUniqueOrThrow({ where: { email: "boss@example.com" } })).canBeAdmin).toBe(true);
  });
});

describe("rate limits", () => {
  it("login attempts per email address are limited with a 429", async () => {
    const user = await createTestUser({ password: "Limited123" });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await post(loginRoute, "/api/auth/login", { email: user.email, password: "Wrong12345" })).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    const limited = await post(loginRoute, "/api/auth/login", { email: user.email, password: "Limited123" });
    expect(limited.status).toBe(429);
    expect(String(limited.body.error)).toMatch(/^Too many attempts\. Please try again in/);
    expect(limited.response.headers.get("Retry-After")).toMatch(/^\d+$/);
  });

  it("per client address only when the proxy's header is configured (last entry counts)", async () => {
    const { env } = await import("~/env.server");
    const attempt = (email: string, forwarded: string) =>
      callRoute(loginRoute, { method: "POST", path: "/api/auth/login", json: { email, password: "Wrong12345" }, headers: { "X-Forwarded-For": forwarded } });
    // Not configured: the header is ignored (a client could forge it).
    for (let i = 0; i < 3; i++) expect((await attempt(`nobody${i}@example.com`, "10.0.0.9")).status).toBe(401);
    expect(await db.rateLimit.count({ where: { key: { startsWith: "login:ip:" } } })).toBe(0);

    env().CLIENT_IP_HEADER = "x-forwarded-for";
    try {
      // A client may prepend anything; the proxy's own last entry is what counts: two attempts
      // with different first entries share one counter.
      expect((await attempt("spray0@example.com", "6.6.6.0, 10.0.0.1")).status).toBe(401);
      expect((await attempt("spray1@example.com", "6.6.6.1, 10.0.0.1")).status).toBe(401);
      const counter = await db.rateLimit.findFirstOrThrow({ where: { key: { startsWith: "login:ip:" } } });
      expect(counter.count).toBe(2);
      expect(await db.rateLimit.count({ where: { key: { startsWith: "login:ip:" } } })).toBe(1);
      // 47 more attempts are set in the database rather than made (each costs a bcrypt compare,
      // 30 s and more on a loaded machine): the 50th attempt passes, the 51st is refused.
      await db.rateLimit.update({ where: { key: counter.key }, data: { count: 49 } });
      expect((await attempt("spray49@example.com", "6.6.6.49, 10.0.0.1")).status).toBe(401);
      expect((await attempt("spray50@example.com", "6.6.6.50, 10.0.0.1")).status).toBe(429);
      expect((await attempt("fresh@example.com", "10.0.0.3")).status).toBe(401);
    } finally {
      env().CLIENT_IP_HEADER = undefined;
    }
  });
});

describe("a body of the wrong shape", () => {
  const login = (body: string) => callRoute(loginRoute, { method: "POST", body, headers: { "Content-Type": "application/json" } });

  it("is told in words what is wrong, not in zod's types, and nothing is written", async () => {
    const sessions = await db.session.count();
    for (const body of ["null", "[1,2]", '"admin@example.com"']) {
      const answer = await login(body);
      expect([answer.status, await readJsonBody(answer)]).toEqual([400, { error: "Request body must be a JSON object." }]);
    }
    const typed = await login(JSON.stringify({ email: 5, password: "x" }));
    expect([typed.status, await readJsonBody(typed)]).toEqual([400, { error: "email must be text." }]);
    // A field's own words stay.
    const missing = await login(JSON.stringify({ email: "a@example.com" }));
    expect(await readJsonBody(missing)).toEqual({ error: "Please enter your password." });
    expect(await db.session.count()).toBe(sessions);
  });
});
