// Email-and-password accounts: sign-up, login (through remix-auth-form, for the /login form and
// the JSON API alike), and changing, setting and resetting the password. bcrypt runs in the
// worker pool, never on the event loop (see password-pool.server.ts).
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { db, Prisma } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { codeMail } from "~/integrations/mail.server";
import { isPasswordPoolBusy, PASSWORD_POOL_BUSY, passwordPool, type PasswordPool } from "~/integrations/password-pool.server";
import { revokeApiTokens } from "~/models/api-token.server";
import { dropUnprovenAttachments, grantAdminIfListed, hasProvenEmail, MINUTE } from "~/models/account.server";
import { verificationMail } from "~/models/email-verification.server";
import { DomainError } from "~/models/errors";
import { sendQueuedNow } from "~/models/mail-outbox.server";
import { enforceAddressLimit, enforceRateLimit, resetRateLimit } from "~/models/rate-limit.server";
import { checkCode, checkRefusal, issueCodeWithMail } from "~/models/verification.server";
import { loginSchema, signUpFormSchema } from "~/utils/auth-schemas";
import { parseForm } from "~/utils/form-fields";
import { errorFields, log } from "~/logger.server";

const BCRYPT_ROUNDS = 10;

export const INVALID_LOGIN_MESSAGE = "Invalid email or password.";
export const PASSWORD_RESET_MESSAGE = "Password reset successfully. You can now log in.";
export const FORGOT_PASSWORD_ANSWER = "If an account exists with that email, a reset code has been sent.";
const EMAIL_TAKEN_MESSAGE = "An account with this email already exists. Please log in.";
const SIGN_UP_FAILED_MESSAGE = "Failed to sign up.";
/** What a sign-up that the database failed half-way asks the client to wait before its retry. */
const SIGN_UP_RETRY_SECONDS = 5;
const HAS_PASSWORD_MESSAGE = "Your account already has a password. Please change it instead.";

// A fixed hash so a login for an unknown email costs as much time as one for a known email.
// (bcrypt of "not-a-real-password" with BCRYPT_ROUNDS; a constant, so no bcrypt runs at start.)
const DUMMY_HASH = "$2b$10$ap/sRcsAiF//AxEPSTSrJOlX3Vve2W8M96c9u3UMKI9lHf11.oxW6";

/** Work for the bcrypt pool; a full queue is a refusal to answer as it is (503 + Retry-After). */
async function withPasswordPool<T>(work: (pool: PasswordPool) => Promise<T>): Promise<T> {
  try {
    return await work(await passwordPool());
  } catch (error) {
    if (isPasswordPoolBusy(error)) throw new DomainError(503, error.message, { retryAfterSeconds: error.retryAfterSeconds, code: PASSWORD_POOL_BUSY });
    throw error;
  }
}

export function hashPassword(password: string): Promise<string> {
  return withPasswordPool((pool) => pool.hash(password, BCRYPT_ROUNDS));
}

function passwordMatches(password: string, hash: string): Promise<boolean> {
  return withPasswordPool((pool) => pool.compare(password, hash));
}

/**
 * Creates an unverified email account and mails its code. The account, its code and the code's
 * mail are written in one transaction: a sign-up that fails half-way leaves nothing, and its
 * retry starts clean. The mail is then sent at once; when the mail server is down it stays
 * queued and is retried (docs/decisions/018-mail-outbox.md), and the sign-up still succeeds.
 * The caller starts the session.
 */
export async function registerWithPassword({ email, password, client }: { email: string; password: string; client?: string | null }): Promise<User> {
  await enforceAddressLimit("signup", client, 20, 60 * MINUTE);
  await enforceRateLimit(`signup:email:${email}`, 5, 60 * MINUTE);
  const existing = await db.user.findUnique({ where: { email } });
  if (existing) throw new DomainError(409, EMAIL_TAKEN_MESSAGE);
  const passwordHash = await hashPassword(password);
  let created: { user: User; mailId: string | null };
  try {
    created = await db.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { email, passwordHash, mailVerified: false } });
      const { mailId } = await issueCodeWithMail(tx, {
        purpose: "EMAIL_VERIFY",
        target: email,
        userId: user.id,
        mail: (code) => verificationMail(email, code),
      });
      return { user, mailId };
    });
  } catch (error) {
    // Another sign-up with this email won the race.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new DomainError(409, EMAIL_TAKEN_MESSAGE);
    if (error instanceof DomainError) throw error;
    // The database failed mid-way: the transaction kept nothing, so the same sign-up may come again.
    log().error(errorFields(error), "sign-up failed in the database; nothing was kept");
    throw new DomainError(503, SIGN_UP_FAILED_MESSAGE, { retryAfterSeconds: SIGN_UP_RETRY_SECONDS });
  }
  await sendQueuedNow([created.mailId]);
  return created.user;
}

/** Checks email and password; limited per client address and per email address. */
export async function loginWithPassword({ email, password, client }: { email: string; password: string; client?: string | null }): Promise<User> {
  await enforceAddressLimit("login", client, 50, 15 * MINUTE);
  await enforceRateLimit(`login:email:${email}`, 10, 15 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  const matches = await passwordMatches(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !user.passwordHash || !matches) throw new DomainError(401, INVALID_LOGIN_MESSAGE);
  await resetRateLimit(`login:email:${email}`);
  return grantAdminIfListed(user);
}

/**
 * The "login" and "sign-up" strategies of remix-auth-form for one request's client (its address
 * counts against the per-address limits). Each reads the form itself; refusals are DomainErrors
 * with the field messages.
 */
export function passwordAuthenticator(client: string | null): Authenticator<User> {
  return new Authenticator<User>()
    .use(
      new FormStrategy(async ({ form }) => {
        const input = parseForm(form, loginSchema);
        return loginWithPassword({ ...input, client });
      }),
      "login",
    )
    .use(
      new FormStrategy(async ({ form }) => {
        const input = parseForm(form, signUpFormSchema);
        return registerWithPassword({ email: input.email, password: input.password, client });
      }),
      "signup",
    );
}

/**
 * A form POST to `url` carrying `body`: how the JSON API hands its fields to the form strategy,
 * and how /login hands over the form it already read to route the intent.
 */
export function formRequest(url: string, body: FormData | URLSearchParams): Request {
  return new Request(url, { method: "POST", body });
}

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
  if (!user.passwordHash) throw new DomainError(400, "Your account has no password yet. Please set one.");
  if (!(await passwordMatches(currentPassword, user.passwordHash))) throw new DomainError(400, "Current password is incorrect.");
  const passwordHash = await hashPassword(newPassword);
  await db.$transaction([
    db.user.update({ where: { id: user.id }, data: { passwordHash } }),
    db.session.deleteMany({ where: { userId: user.id, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) } }),
    revokeApiTokens(user.id),
  ]);
}

export async function setPassword(user: User, newPassword: string): Promise<void> {
  if (user.passwordHash) throw new DomainError(409, HAS_PASSWORD_MESSAGE);
  if (!user.email) throw new DomainError(400, "Your account has no email address to log in with.");
  // Only the first password: a concurrent request cannot overwrite one set a moment ago.
  const { count } = await db.user.updateMany({ where: { id: user.id, passwordHash: null }, data: { passwordHash: await hashPassword(newPassword) } });
  if (count === 0) throw new DomainError(409, HAS_PASSWORD_MESSAGE);
  await revokeApiTokens(user.id);
}

/** Step 1 of the reset: answers the same whether or not the account exists. */
export async function requestPasswordReset(email: string, client?: string | null): Promise<string> {
  await enforceAddressLimit("reset-request", client, 20, 60 * MINUTE);
  await enforceRateLimit(`reset-request:email:${email}`, 5, 60 * MINUTE);
  const user = await db.user.findUnique({ where: { email } });
  if (user) {
    // Within the cooldown the earlier mail still holds a valid code (no new one is issued); stay
    // silent about it. A mail server that is down leaves the mail queued, retried until the code expires.
    const { mailId } = await db.$transaction((tx) =>
      issueCodeWithMail(tx, {
        purpose: "PASSWORD_RESET",
        target: email,
        userId: user.id,
        mail: (code) =>
          codeMail({
            to: email,
            subject: "Your password reset code",
            intro: "Someone asked to reset the password of your account. Enter this code on the reset page:",
            code,
            outro: "The code is valid for 15 minutes. If this was not you, ignore this mail: your password stays as it is.",
          }),
      }),
    );
    await sendQueuedNow([mailId]);
  }
  return FORGOT_PASSWORD_ANSWER;
}

/**
 * Step 2: a valid code sets the new password and ends every session of the account. When it is
 * the first proof of the address, what was attached before it ends too.
 */
export async function resetPassword({
  email,
  code,
  newPassword,
  client,
}: {
  email: string;
  code: string;
  newPassword: string;
  client?: string | null;
}): Promise<void> {
  await enforceAddressLimit("reset", client, 50, 15 * MINUTE);
  await enforceRateLimit(`reset:email:${email}`, 10, 15 * MINUTE);
  const result = await checkCode({ purpose: "PASSWORD_RESET", target: email, code });
  if (!result.ok) throw checkRefusal(result.reason);
  const user = await db.user.findUnique({ where: { email } });
  if (!user) throw checkRefusal("missing");
  const passwordHash = await hashPassword(newPassword);
  // The code proved the address, so the account counts as verified from now on.
  await db.$transaction(async (tx) => {
    if (!hasProvenEmail(user)) await dropUnprovenAttachments(tx, user.id);
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, mailVerified: true, emailVerifiedBy: "CODE" } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    await revokeApiTokens(user.id, tx);
  });
  await resetRateLimit(`login:email:${email}`);
}
