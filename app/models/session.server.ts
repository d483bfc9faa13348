// Sessions: a signed cookie holds only a random session id; the session row lives in the
// database, so logout, restriction and "sign out everywhere" take effect at once.
import { createHash, randomBytes } from "node:crypto";
import { createCookie, redirect } from "@remix-run/node";
import { db, preparedQuery } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import { apiError } from "~/api.server";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

let cookie: ReturnType<typeof createCookie> | undefined;
function sessionCookie() {
  cookie ??= createCookie("__session", {
    httpOnly: true,
    sameSite: "lax",
    secure: env().APP_URL.startsWith("https://"),
    path: "/",
    secrets: env().SESSION_SECRET,
    maxAge: SESSION_TTL_MS / 1000,
  });
  return cookie;
}

/** Starts a session for the user and answers the Set-Cookie header value. */
export async function createUserSession(userId: string): Promise<string> {
  const id = randomBytes(32).toString("base64url");
  await db.session.create({ data: { id, userId, expiresAt: new Date(Date.now() + SESSION_TTL_MS) } });
  return sessionCookie().serialize(id);
}

/** Ends the request's session on the server and answers the Set-Cookie header that clears it. */
export async function destroyUserSession(request: Request): Promise<string> {
  const id = await readSessionId(request);
  if (id) await db.session.deleteMany({ where: { id } });
  return sessionCookie().serialize("", { maxAge: 0 });
}

/** The id of the request's cookie session, or null. */
export async function readSessionId(request: Request): Promise<string | null> {
  const value: unknown = await sessionCookie().parse(request.headers.get("Cookie"));
  return typeof value === "string" && value.length > 0 ? value : null;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * The users columns under their Prisma field names, for the lookup every request makes: a
 * prepared statement (see `preparedQuery`). tests/session-lookup.test.ts compares the result with
 * `db.user.findUnique`, so a column added to the model cannot be missed here.
 */
const USER_COLUMNS = `u.id, u.number, u.email::text AS email, u.full_name AS "fullName",
  u.password_hash AS "passwordHash", u.patreon_id AS "patreonId", u.google_id AS "googleId",
  u.discord_id AS "discordId", u.discord_tag AS "discordTag", u.current_tier_id AS "currentTierId",
  u.kofi_current_tier AS "kofiCurrentTier", u.is_admin AS "isAdmin", u.can_be_admin AS "canBeAdmin",
  u.mail_verified AS "mailVerified", u.tos_accepted AS "tosAccepted", u.restricted,
  u.created_at AS "createdAt", u.updated_at AS "updatedAt"`;

/** The logged-in user of a request (session cookie or personal API token), or null. */
export async function getCurrentUser(request: Request): Promise<User | null> {
  const authorization = request.headers.get("Authorization");
  if (authorization?.startsWith("Bearer ")) {
    const token = authorization.slice("Bearer ".length).trim();
    if (!token) return null;
    const [user] = await preparedQuery<User>(
      "user-by-api-token",
      `SELECT ${USER_COLUMNS} FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
      [hashToken(token)],
    );
    return user ?? null;
  }
  const id = await readSessionId(request);
  if (!id) return null;
  const [row] = await preparedQuery<User & { sessionExpiresAt: Date }>(
    "user-by-session",
    `SELECT ${USER_COLUMNS}, s.expires_at AS "sessionExpiresAt" FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1`,
    [id],
  );
  if (!row) return null;
  const { sessionExpiresAt, ...user } = row;
  if (sessionExpiresAt.getTime() <= Date.now()) {
    await db.session.deleteMany({ where: { id } });
    return null;
  }
  return user;
}

/** For `/api` routes: the user, or a thrown 401 JSON error. */
export async function requireApiUser(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user) throw apiError(401, "Not authenticated");
  return user;
}

/** For `/api` routes: an admin, or a thrown 401/403 JSON error in the spec's words. */
export async function requireApiAdmin(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user) throw apiError(401, "You need to be logged in as an admin to perform this action.");
  if (!user.isAdmin || user.restricted) throw apiError(403, "You need to be logged in as an admin to perform this action.");
  return user;
}

/** For UI routes: the user, or a redirect to /login. */
export async function requireUser(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user) throw redirect("/login");
  return user;
}

/** For UI routes: an admin, or a redirect to / (spec: non-admins are redirected to /). */
export async function requireAdmin(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user?.isAdmin || user.restricted) throw redirect("/");
  return user;
}

/** Removes expired sessions; run by the periodic housekeeping job. */
export async function deleteExpiredSessions(now = new Date()): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
