// Accounts: sign-up, login, email verification, usernames, passwords, admin mode, provider
// sign-in and one-time login codes. UI actions and `/api` routes call these same functions.
import { createHash, randomBytes } from "node:crypto";
import { redirect } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { OAuth2RequestError } from "remix-auth-oauth2";
import { db, type Prisma } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import { codeMail, sendMail } from "~/integrations/mail.server";
import { passwordPool, PasswordPoolBusyError } from "~/integrations/password-pool.server";
import {
  clearLoginCodeCookie,
  providerAuthenticator,
  readLoginCodeCookie,
  serializeLoginCodeCookie,
  type ProviderName,
  type ProviderProfile,
} from "~/integrations/oauth.server";
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";
import { createUserSession, getCurrentUser } from "~/models/session.server";
import { redirectWithError } from "~/toast.server";
import { fieldErrors, loginSchema, signUpFormSchema } from "~/utils/auth-schemas";
import { recordAudit } from "~/models/audit.server";
import { apiError } from "~/api.server";
import { CALLBACK_ERRORS, type CallbackErrorCode } from "~/utils/auth-callback-errors";
import { enforceRateLimit, RateLimitError, resetRateLimit } from "~/models/rate-limit.server";
import { cancelCode, checkCode, checkFailureMessage, cooldownMessage, issueCode, pendingCode } from "~/models/verification.server";

const BCRYPT_ROUNDS = 10;
const MINUTE = 60 * 1000;

/** A refusal with the status the `/api` layer answers and the message the user sees. */
export class AccountError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** For forms: the message of each field that failed. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AccountError";
  }
}

/** Runs an account operation for an `/api` route: refusals become thrown JSON errors. */
export async function apiAccountCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof RateLimitError) throw apiError(429, error.message, { "Retry-After": String(error.retryAfterSeconds) });
    if (error instanceof PasswordPoolBusyError) throw apiError(503, error.message, { "Retry-After": String(error.retryAfterSeconds) });
    if (error instanceof AccountError) throw apiError(error.status, error.message);
    throw error;
  }
}

/** A refusal of a provider sign-in: /auth/callback shows the words of its code only. */
export class ProviderSignInError extends AccountError {
  constructor(
    status: number,
    readonly code: CallbackErrorCode,
  ) {
    super(status, CALLBACK_ERRORS[code]);
    this.name = "ProviderSignInError";
  }
}

/** The message of a refusal for a UI form, or null for an unexpected failure. */
export function refusalMessage(error: unknown): string | null {
  return error instanceof AccountError || error instanceof RateLimitError || error instanceof PasswordPoolBusyError ? error.message : null;
}

/** The HTTP status of a refusal for a UI form (500 for an unexpected failure). */
export function refusalStatus(error: unknown): number {
  if (error instanceof AccountError || error instanceof RateLimitError) return error.status;
  if (error instanceof PasswordPoolBusyError) return 503;
  return 500;
}

// The socket address of a request, remembered for code that sees only the Request (the
// remix-auth form strategies).
const socketAddresses = new WeakMap<Request, string>();

/** The connection's address the HTTP server passes in the load context (server/app.ts). */
function socketAddressOf(context: unknown): string | null {
  const value = (context as { clientAddress?: unknown } | null | undefined)?.clientAddress;
  return typeof value === "string" && value ? value.slice(0, 64) : null;
}

/**
 * The client's address for per-address rate limits. With CLIENT_IP_HEADER (a header our own
 * proxy writes) its last entry, the one that proxy appended; otherwise the connection's own
 * address from the load context, never a header the client could write. Null when neither is
 * known (route modules called without the HTTP server).
 */
export function clientAddress(request: Request, context?: unknown): string | null {
  const header = env().CLIENT_IP_HEADER;
  if (header) {
    const value = request.headers.get(header);
    const last = value?.split(",").pop()?.trim();
    return last ? last.slice(0, 64) : null;
  }
  const socket = socketAddressOf(context);
  if (socket) socketAddresses.set(request, socket);
  return socket ?? socketAddresses.get(request) ?? null;
}

/** Per-address limit, counted only when the address is known. */
async function enforceAddressLimit(action: string, client: string | null | undefined, limit: number, windowMs: number) {
  if (client) await enforceRateLimit(`${action}:ip:${client}`, limit, windowMs);
}

export const INVALID_LOGIN_MESSAGE = "Invalid email or password.";
export const PASSWORD_RESET_MESSAGE = "Password reset successfully. You can now log in.";
export const FORGOT_PASSWORD_ANSWER = "If an account exists with that email, a reset code has been sent.";

// A fixed hash so a login for an unknown email costs as much time as one for a known email.
// (bcrypt of "not-a-real-password" with BCRYPT_ROUNDS; a constant, so no bcrypt runs at start.)
const DUMMY_HASH = "$2b$10$ap/sRcsAiF//AxEPSTSrJOlX3Vve2W8M96c9u3UMKI9lHf11.oxW6";

/** bcrypt runs in the worker pool, never on the event loop (see password-pool.server.ts). */
export async function hashPassword(password: string): Promise<string> {
  return (await passwordPool()).hash(password, BCRYPT_ROUNDS);
}

async function passwordMatches(password: string, hash: string): Promise<boolean> {
  return (await passwordPool()).compare(password, hash);
}

function isListedAdmin(email: string | null): boolean {
  return email !== null && env().ADMIN_EMAILS.includes(email.toLowerCase());
}

/**
 * Whether the account's email address is proven: by a code mailed to it, or by a provider that
 * asserted this very address as verified. `mailVerified` alone is not proof (it is also the
 * "finished setting up" state of provider accounts).
 */
export function hasProvenEmail(user: Pick<User, "email" | "emailVerifiedBy">): boolean {
  return user.email !== null && user.emailVerifiedBy !== null;
}

/** Accounts whose proven email is in ADMIN_EMAILS may switch admin mode on. */
async function grantAdminIfListed(user: User): Promise<User> {
  if (user.canBeAdmin || !user.mailVerified || !hasProvenEmail(user) || !isListedAdmin(user.email)) return user;
  return db.user.update({ where: { id: user.id }, data: { canBeAdmin: true } });
}

async function sendVerificationMail(email: string, code: string) {
  await sendMail(
    codeMail({
      to: email,
      subject: "Your verification code",
      intro: "Welcome! Enter this code on the login page to verify your email address:",
      code,
      outro: "The code is valid for 15 minutes. If you did not create an account, you can ignore this mail.",
    }),
  );
}

/** A code whose mail never left is dropped: no resend cooldown for a mail that was not sent. */
async function withdrawCode(purpose: "EMAIL_VERIFY" | "PASSWORD_RESET", target: string) {
  await cancelCode(purpose, target).catch(() => undefined);
}

/** Sends a code mail; when the mail server fails, the code is withdrawn and the error rethrown. */
async function mailOrWithdraw(purpose: "EMAIL_VERIFY" | "PASSWORD_RESET", target: string, send: () => Promise<void>) {
  try {
    await send();
  } catch (error) {
    await withdrawCode(purpose, target);
    throw error;
  }
}

// ---------------------------------------------------------------- sign-up and login

/** Creates an unverified email account and mails its code. The caller starts the session. */
export async function registerWithPassword({ email, password, client }: { email: string; password: string; client?: string | null }): Promise<User> {
  await enforceAddressLimit("signup", client, 20, 60 * MINUTE);
  await enforceRateLimit(`signup:email:${email}`, 5, 60 * MINUTE);
  const existing = await db.user.findUnique({ where: { email } });
  if (existing) throw new AccountError(409, "An account with this email already exists. Please log in.");
  let user: User;
  try {
    user = await db.user.create({ data: { email, passwordHash: await hashPassword(password), mailVerified: false } });
  } catch {
    throw new AccountError(409, "An account with this email already exists. Please log in.");
  }
  const issued = await issueCode({ purpose: "EMAIL_VERIFY", target: email, userId: user.id });
  if (issued.ok) {
    try {
      await sendVerificationMail(email, issued.code);
    } catch (error) {
      // Mail server down: undo the sign-up so nothing half-made stays and a retry starts clean.
      await withdrawCode("EMAIL_VERIFY", email);
      await db.user.delete({ where: { id: user.id } }).catch(() => undefined);
      throw error;
    }
  }
  return user;
}

/** Checks email and password; limited per email address and per account. */
export async function loginWithPassword({ email, password, client }: { email: string; password: string; client?: string | null }): Promise<User> {
  await enforceAddressLimit("login", client, 50, 15 * MINUTE);
  await enforceRateLimit(`login:email:${email}`, 10, 15 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  const matches = await passwordMatches(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !user.passwordHash || !matches) throw new AccountError(401, INVALID_LOGIN_MESSAGE);
  await resetRateLimit(`login:email:${email}`);
  return grantAdminIfListed(user);
}

/**
 * The login and sign-up forms of /login, through remix-auth-form. Each strategy reads the form
 * itself; refusals come out as AccountError with the field messages.
 */
export const passwordAuthenticator = new Authenticator<User>()
  .use(
    new FormStrategy(async ({ form, request }) => {
      const parsed = loginSchema.safeParse({ email: form.get("email"), password: form.get("password") });
      if (!parsed.success) throw new AccountError(400, parsed.error.issues[0]!.message, fieldErrors(parsed.error));
      return loginWithPassword({ ...parsed.data, client: clientAddress(request) });
    }),
    "login",
  )
  .use(
    new FormStrategy(async ({ form, request }) => {
      const parsed = signUpFormSchema.safeParse({ email: form.get("email"), password: form.get("password"), confirmPassword: form.get("confirmPassword") });
      if (!parsed.success) throw new AccountError(400, parsed.error.issues[0]!.message, fieldErrors(parsed.error));
      return registerWithPassword({ email: parsed.data.email, password: parsed.data.password, client: clientAddress(request) });
    }),
    "signup",
  );

// ---------------------------------------------------------------- email verification

/** Verifies an email account with its code; optionally sets the username in the same step. */
export async function verifyEmail({ email, code, username, client }: { email: string; code: string; username?: string; client?: string | null }): Promise<User> {
  await enforceAddressLimit("verify", client, 50, 15 * MINUTE);
  await enforceRateLimit(`verify:email:${email}`, 10, 15 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  if (!user) throw new AccountError(400, checkFailureMessage("missing"));
  if (user.mailVerified && username === undefined) throw new AccountError(409, "This email is already verified.");
  await enforceRateLimit(`verify:user:${user.id}`, 10, 15 * MINUTE);
  const result = await checkCode({ purpose: "EMAIL_VERIFY", target: email, code });
  if (!result.ok) throw new AccountError(400, checkFailureMessage(result.reason));
  const verified = await db.user.update({
    where: { id: user.id },
    data: { mailVerified: true, emailVerifiedBy: "CODE", ...(username !== undefined ? { fullName: username } : {}) },
  });
  return grantAdminIfListed(verified);
}

/** Sends a new code to an unverified email account; refused for 60 s after the last one. */
export async function resendVerification(email: string, client?: string | null): Promise<void> {
  await enforceAddressLimit("resend", client, 30, 60 * MINUTE);
  await enforceRateLimit(`resend:email:${email}`, 10, 60 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  if (!user || user.mailVerified || !user.passwordHash) throw new AccountError(400, "There is no unverified account with this email.");
  const issued = await issueCode({ purpose: "EMAIL_VERIFY", target: email, userId: user.id });
  if (!issued.ok) throw new AccountError(429, cooldownMessage(issued.retryAfterSeconds));
  await mailOrWithdraw("EMAIL_VERIFY", email, () => sendVerificationMail(email, issued.code));
}

/** Seconds until "Resend verification code" may be pressed again (0 when it may now). */
export async function verificationResendWait(user: User): Promise<number> {
  if (!user.email || user.mailVerified) return 0;
  return (await pendingCode("EMAIL_VERIFY", user.email))?.resendInSeconds ?? 0;
}

/**
 * "Cancel Verification": the sign-up is abandoned. An email account that never proved its
 * address and has nothing else attached is removed; its session goes with it.
 */
export async function cancelEmailVerification(user: User): Promise<void> {
  if (user.mailVerified) throw new AccountError(409, "This email is already verified.");
  if (user.email) await cancelCode("EMAIL_VERIFY", user.email);
  if (!user.patreonId && !user.googleId && !user.discordId) await db.user.delete({ where: { id: user.id } });
}

/**
 * Whether choosing a username verifies this account (spec section 4): only an account created by
 * the general or chat-community provider, holding no email or the address that same provider
 * asserted as verified. An email account that merely linked a provider must still enter its code.
 */
export function verifiesByUsername(user: Pick<User, "signUpMethod" | "email" | "emailVerifiedBy" | "mailVerified">): boolean {
  if (user.mailVerified) return false;
  if (user.signUpMethod !== "GOOGLE" && user.signUpMethod !== "DISCORD") return false;
  return user.email === null || user.emailVerifiedBy === user.signUpMethod;
}

/** Sets the display name; for the accounts of `verifiesByUsername` it is the verifying step. */
export async function setUsername(user: User, username: string): Promise<User> {
  if (isRestricted(user)) throw new AccountError(403, RESTRICTED_MESSAGE);
  await enforceRateLimit(`username:user:${user.id}`, 10, 15 * MINUTE);
  const updated = await db.user.update({
    where: { id: user.id },
    data: { fullName: username, ...(verifiesByUsername(user) ? { mailVerified: true } : {}) },
  });
  return grantAdminIfListed(updated);
}

// ---------------------------------------------------------------- passwords

/**
 * Changes the password and signs the account out everywhere else (a changed password is often
 * a reaction to someone else having it); the session making the change stays.
 */
export async function changePassword(
  user: User,
  { currentPassword, newPassword }: { currentPassword: string; newPassword: string },
  keepSessionId: string | null = null,
): Promise<void> {
  await enforceRateLimit(`password:user:${user.id}`, 10, 15 * MINUTE);
  if (!user.passwordHash) throw new AccountError(400, "Your account has no password yet. Please set one.");
  if (!(await passwordMatches(currentPassword, user.passwordHash))) throw new AccountError(400, "Current password is incorrect.");
  const passwordHash = await hashPassword(newPassword);
  await db.$transaction([
    db.user.update({ where: { id: user.id }, data: { passwordHash } }),
    db.session.deleteMany({ where: { userId: user.id, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) } }),
  ]);
}

export async function setPassword(user: User, newPassword: string): Promise<void> {
  if (user.passwordHash) throw new AccountError(409, "Your account already has a password. Please change it instead.");
  if (!user.email) throw new AccountError(400, "Your account has no email address to log in with.");
  // Only the first password: a concurrent request cannot overwrite one set a moment ago.
  const { count } = await db.user.updateMany({ where: { id: user.id, passwordHash: null }, data: { passwordHash: await hashPassword(newPassword) } });
  if (count === 0) throw new AccountError(409, "Your account already has a password. Please change it instead.");
}

/** Step 1 of the reset: answers the same whether or not the account exists. */
export async function requestPasswordReset(email: string, client?: string | null): Promise<string> {
  await enforceAddressLimit("reset-request", client, 20, 60 * MINUTE);
  await enforceRateLimit(`reset-request:email:${email}`, 5, 60 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  if (user) {
    const issued = await issueCode({ purpose: "PASSWORD_RESET", target: email, userId: user.id });
    // Within the cooldown the earlier mail still holds a valid code; stay silent about it.
    if (issued.ok) {
      await mailOrWithdraw("PASSWORD_RESET", email, () => sendMail(
        codeMail({
          to: email,
          subject: "Your password reset code",
          intro: "Someone asked to reset the password of your account. Enter this code on the reset page:",
          code: issued.code,
          outro: "The code is valid for 15 minutes. If this was not you, ignore this mail: your password stays as it is.",
        }),
      ));
    }
  }
  return FORGOT_PASSWORD_ANSWER;
}

/** Step 2: a valid code sets the new password and ends every session of the account. */
export async function resetPassword({ email, code, newPassword, client }: { email: string; code: string; newPassword: string; client?: string | null }): Promise<void> {
  await enforceAddressLimit("reset", client, 50, 15 * MINUTE);
  await enforceRateLimit(`reset:email:${email}`, 10, 15 * MINUTE);
  const result = await checkCode({ purpose: "PASSWORD_RESET", target: email, code });
  if (!result.ok) throw new AccountError(400, checkFailureMessage(result.reason));
  const user = await db.user.findUnique({ where: { email } });
  if (!user) throw new AccountError(400, checkFailureMessage("missing"));
  // The code proved the address, so the account counts as verified from now on.
  await db.$transaction([
    db.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(newPassword), mailVerified: true, emailVerifiedBy: "CODE" } }),
    db.session.deleteMany({ where: { userId: user.id } }),
  ]);
  await resetRateLimit(`login:email:${email}`);
}

// ---------------------------------------------------------------- admin mode

/** Switches admin mode; only accounts with canBeAdmin may. Recorded in the audit log. */
export async function toggleAdmin(user: User): Promise<boolean> {
  if (!user.canBeAdmin || user.restricted) throw new AccountError(403, "You are not allowed to change admin status.");
  return db.$transaction(async (tx) => {
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id }, select: { isAdmin: true } });
    const updated = await tx.user.update({ where: { id: user.id }, data: { isAdmin: !current.isAdmin } });
    await recordAudit(
      { actorId: user.id, action: "user.toggle-admin", targetType: "user", targetId: user.id, before: { isAdmin: current.isAdmin }, after: { isAdmin: updated.isAdmin } },
      tx,
    );
    return updated.isAdmin;
  });
}

// ---------------------------------------------------------------- provider sign-in

export type { ProviderName, ProviderProfile };

export const PROVIDER_LABELS: Record<ProviderName, string> = { patreon: "Patreon", google: "Google", discord: "Discord" };

const PROVIDER_COLUMN = { patreon: "patreonId", google: "googleId", discord: "discordId" } as const;

function providerData(profile: ProviderProfile) {
  return {
    [PROVIDER_COLUMN[profile.provider]]: profile.id,
    ...(profile.provider === "discord" ? { discordTag: profile.discordTag ?? null } : {}),
    ...(profile.provider === "patreon" ? { currentTierId: profile.currentTierId ?? null } : {}),
  };
}

const PROVIDER_METHOD = { patreon: "PATREON", google: "GOOGLE", discord: "DISCORD" } as const;

/**
 * The owner of `email` (a provider just proved it) takes it back from an account that never
 * proved it: that account loses the address (and admin rights that came from it), its sessions
 * and pending codes end, and nothing of it is merged into the owner's account.
 */
async function evictUnprovenHolder(holder: User, email: string, tx: Prisma.TransactionClient) {
  const listed = isListedAdmin(email);
  await tx.user.update({
    where: { id: holder.id },
    data: { email: null, emailVerifiedBy: null, mailVerified: false, ...(listed ? { canBeAdmin: false, isAdmin: false } : {}) },
  });
  await tx.session.deleteMany({ where: { userId: holder.id } });
  await tx.verification.deleteMany({ where: { purpose: { in: ["EMAIL_VERIFY", "PASSWORD_RESET"] }, target: email } });
  await recordAudit(
    { actorId: null, action: "user.email.reclaimed", targetType: "user", targetId: holder.id, before: { email, mailVerified: holder.mailVerified }, after: { email: null } },
    tx,
  );
}

/**
 * Finds or creates the account of a provider identity: keyed on the provider's id; linked to
 * the logged-in account (which changes no email or its proof), or to the account that has proven
 * the same verified email; never duplicated. An account holding that email unproven loses it.
 */
export async function signInWithProvider(profile: ProviderProfile, currentUser: User | null): Promise<User> {
  const column = PROVIDER_COLUMN[profile.provider];
  const byProviderId = await db.user.findFirst({ where: { [column]: profile.id } });

  if (currentUser) {
    if (isRestricted(currentUser)) throw new ProviderSignInError(403, "restricted");
    if (byProviderId && byProviderId.id !== currentUser.id) throw new ProviderSignInError(409, "already_linked");
    return db.user.update({ where: { id: currentUser.id }, data: providerData(profile) });
  }

  if (byProviderId) {
    const updated = await db.user.update({ where: { id: byProviderId.id }, data: providerData(profile) });
    return grantAdminIfListed(updated);
  }

  const email = profile.email && profile.emailVerified ? profile.email.toLowerCase() : null;
  if (email) {
    const byEmail = await db.user.findUnique({ where: { email } });
    if (byEmail && hasProvenEmail(byEmail)) {
      if (byEmail[column] !== null) throw new ProviderSignInError(409, "email_linked");
      const linked = await db.user.update({ where: { id: byEmail.id }, data: providerData(profile) });
      return grantAdminIfListed(linked);
    }
  }

  // New account, holding the provider's verified email (taken back from an account that never
  // proved it). General and chat-community accounts become verified by choosing a username;
  // support-platform accounts come with their name.
  const created = await db.$transaction(async (tx) => {
    if (email) {
      const holder = await tx.user.findUnique({ where: { email } });
      if (holder && hasProvenEmail(holder)) throw new ProviderSignInError(409, "email_taken");
      if (holder) await evictUnprovenHolder(holder, email, tx);
    }
    return tx.user.create({
      data: {
        email,
        emailVerifiedBy: email ? PROVIDER_METHOD[profile.provider] : null,
        signUpMethod: PROVIDER_METHOD[profile.provider],
        fullName: profile.provider === "patreon" ? profile.name : null,
        mailVerified: profile.provider === "patreon",
        ...providerData(profile),
      },
    });
  });
  return grantAdminIfListed(created);
}

// ---------------------------------------------------------------- one-time login codes

const LOGIN_CODE_TTL_MS = 2 * MINUTE;

function loginCodeKey(code: string): string {
  return `login-code:${createHash("sha256").update(code).digest("hex")}`;
}

/**
 * After a provider sign-in: a short-lived, single-use code that /auth/callback exchanges for a
 * session. Kept as a pending row of the sessions table under a hashed key that no cookie carries.
 */
export async function createLoginCode(userId: string): Promise<string> {
  const code = randomBytes(32).toString("base64url");
  await db.session.create({ data: { id: loginCodeKey(code), userId, expiresAt: new Date(Date.now() + LOGIN_CODE_TTL_MS) } });
  return code;
}

/** The user id of a valid code, consuming it; null for an unknown, used or expired code. */
export async function exchangeLoginCode(code: string): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(code)) return null;
  const key = loginCodeKey(code);
  const row = await db.session.findUnique({ where: { id: key } });
  if (!row) return null;
  const { count } = await db.session.deleteMany({ where: { id: key } });
  if (count !== 1 || row.expiresAt.getTime() <= Date.now()) return null;
  return row.userId;
}

// ---------------------------------------------------------------- provider redirects

export const COOKIE_BLOCKED_MESSAGE =
  "Your browser did not send our sign-in cookie. Cookies may be blocked by your browser settings or an extension (ad or privacy blockers). Please allow cookies for this site and try again.";
export const INVALID_LOGIN_CODE_MESSAGE = "Invalid or expired login code. Please try logging in again.";

/** GET /api/auth/login, /api/google/auth, /api/discord/auth: a full-page redirect to the provider. */
export async function startProviderSignIn(provider: ProviderName, request: Request): Promise<Response> {
  const authenticator = providerAuthenticator(provider);
  if (!authenticator) return redirectWithError("/login", `Sign-in with ${PROVIDER_LABELS[provider]} is not configured.`);
  // Without query parameters, so a stray `state` cannot turn this into a callback.
  const url = new URL(request.url);
  const clean = new Request(`${url.origin}${url.pathname}`, { headers: request.headers });
  try {
    await authenticator.authenticate(provider, clean);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
  return redirect("/login");
}

function callbackError(code: CallbackErrorCode): Response {
  return redirect(`/auth/callback?error=${code}`);
}

/**
 * The provider's redirect back: checks state and PKCE, fetches the profile, finds or links the
 * account, then sends the browser to /auth/callback with a one-time login code bound to it.
 */
export async function finishProviderSignIn(provider: ProviderName, request: Request): Promise<Response> {
  const label = PROVIDER_LABELS[provider];
  try {
    await enforceAddressLimit("provider-sign-in", clientAddress(request), 30, 15 * MINUTE);
  } catch (thrown) {
    if (thrown instanceof RateLimitError) return callbackError("rate_limited");
    throw thrown;
  }
  const authenticator = providerAuthenticator(provider);
  if (!authenticator) return callbackError("not_configured");
  let profile: ProviderProfile;
  try {
    profile = await authenticator.authenticate(provider, request);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    if (thrown instanceof OAuth2RequestError) return callbackError(thrown.code === "access_denied" ? "access_denied" : "provider_error");
    if (thrown instanceof ReferenceError || thrown instanceof RangeError) return callbackError("state_mismatch");
    console.warn(`${label} sign-in failed:`, thrown);
    return callbackError("failed");
  }
  let user: User;
  try {
    user = await signInWithProvider(profile, await getCurrentUser(request));
  } catch (thrown) {
    if (thrown instanceof ProviderSignInError) return callbackError(thrown.code);
    if (thrown instanceof AccountError) return callbackError("failed");
    throw thrown;
  }
  const code = await createLoginCode(user.id);
  return redirect(`/auth/callback?code=${encodeURIComponent(code)}`, { headers: { "Set-Cookie": await serializeLoginCodeCookie(code) } });
}

/** POST /api/auth/callback: the code must come from the browser that holds its cookie. */
export async function exchangeProviderLoginCode(request: Request, code: string): Promise<Headers> {
  await enforceAddressLimit("login-code", clientAddress(request), 30, 15 * MINUTE);
  const bound = await readLoginCodeCookie(request);
  if (!bound) throw new AccountError(403, COOKIE_BLOCKED_MESSAGE);
  if (bound !== code) throw new AccountError(400, INVALID_LOGIN_CODE_MESSAGE);
  const userId = await exchangeLoginCode(code);
  if (!userId) throw new AccountError(400, INVALID_LOGIN_CODE_MESSAGE);
  const headers = new Headers();
  headers.append("Set-Cookie", await createUserSession(userId));
  headers.append("Set-Cookie", await clearLoginCodeCookie());
  return headers;
}

// ---------------------------------------------------------------- /login?callback=

/** The callback address when its origin is on CALLBACK_ORIGINS; null otherwise (no open redirect). */
export function allowedCallback(callback: string): URL | null {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  return env().CALLBACK_ORIGINS.includes(url.origin) ? url : null;
}
