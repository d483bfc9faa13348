// Sessions: a signed cookie holds only a random session id; the session row lives in the
// database, so logout, restriction and "sign out everywhere" take effect at once.
import { createHash, randomBytes } from "node:crypto";
import { createCookie, redirect } from "@remix-run/node";
import { db, queryRows } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import { apiError } from "~/api.server";
import { isEffectiveAdmin } from "~/utils/entitlement";

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
 * Each field of User and its column, for the plain-SQL lookup every request makes
 * (see `queryRows`). The type makes a field added to the model fail to compile until it is
 * listed here; tests/session-lookup.test.ts compares the result with `db.user.findUnique`.
 */
const USER_COLUMN_SQL: Record<keyof User, string> = {
  id: "u.id",
  number: "u.number",
  email: "u.email::text",
  fullName: "u.full_name",
  passwordHash: "u.password_hash",
  patreonId: "u.patreon_id",
  googleId: "u.google_id",
  discordId: "u.discord_id",
  discordTag: "u.discord_tag",
  currentTierId: "u.current_tier_id",
  kofiCurrentTier: "u.kofi_current_tier",
  isAdmin: "u.is_admin",
  canBeAdmin: "u.can_be_admin",
  mailVerified: "u.mail_verified",
  signUpMethod: "u.sign_up_method::text",
  emailVerifiedBy: "u.email_verified_by::text",
  tosAccepted: "u.tos_accepted",
  restricted: "u.restricted",
  createdAt: "u.created_at",
  updatedAt: "u.updated_at",
};
/** The user's columns, read from the users row named `row` (e.g. `u`, or `(r.account)`). */
function userColumns(row: string): string {
  return Object.entries(USER_COLUMN_SQL)
    .map(([field, column]) => `${column.replace(/^u\./, `${row}.`)} AS "${field}"`)
    .join(", ");
}
const USER_COLUMNS = userColumns("u");
const SESSION_USER_COLUMNS = userColumns("(r.account)");

/** The viewer context (migration 0004) read in the same round trip as the request's user. */
export type ViewerColumnsRequest = { withDownloads: boolean; withLibraryStamp: boolean };
const VIEWER_COLUMNS = ["unlocked", "purchases", "pledges", "downloads", "stamp"];

/** The logged-in user of a request (session cookie or personal API token), or null. */
export async function getCurrentUser(request: Request): Promise<User | null> {
  return (await getCurrentUserWith(request, null))?.user ?? null;
}

/**
 * The request's user and, when asked, their viewer context (the columns of `viewer_context`) in
 * one round trip: the listing reads the viewer's entitlements this way.
 */
export async function getCurrentUserWith<Extra extends object>(request: Request, viewer: ViewerColumnsRequest | null): Promise<{ user: User; extra: Extra } | null> {
  const flags = [viewer?.withDownloads ?? false, viewer?.withLibraryStamp ?? false];
  const authorization = request.headers.get("Authorization");
  // The scheme is case-insensitive (RFC 9110), as in the cross-site guard of server/security.ts.
  const bearer = authorization ? /^bearer\s+(.*)$/is.exec(authorization) : null;
  if (bearer) {
    const token = bearer[1]!.trim();
    if (!token) return null;
    const extraColumns = viewer ? `, ${VIEWER_COLUMNS.map((column) => `v.${column}`).join(", ")}` : "";
    const join = viewer ? "CROSS JOIN LATERAL viewer_context(u.id, $2, $3) v" : "";
    const [row] = await queryRows<User & Extra>(
      `SELECT ${USER_COLUMNS}${extraColumns} FROM api_tokens t JOIN users u ON u.id = t.user_id ${join} WHERE t.token_hash = $1`,
      [hashToken(token), ...(viewer ? flags : [])],
    );
    return row ? splitRow<Extra>(row) : null;
  }
  const id = await readSessionId(request);
  if (!id) return null;
  // One call of the database function `session_viewer` (migration 0005): its plan is kept per
  // server connection, which works through a transaction-mode pooler (docs/decisions/006).
  const extraColumns = viewer ? `, ${VIEWER_COLUMNS.map((column) => `r.${column}`).join(", ")}` : "";
  const [row] = await queryRows<User & Extra & { sessionExpiresAt: Date }>(
    `SELECT ${SESSION_USER_COLUMNS}, r.session_expires_at AS "sessionExpiresAt"${extraColumns} FROM session_viewer($1, $2, $3, $4) r`,
    [id, viewer !== null, ...flags],
  );
  if (!row) return null;
  if (row.sessionExpiresAt.getTime() <= Date.now()) {
    await db.session.deleteMany({ where: { id } });
    return null;
  }
  return splitRow<Extra>(row);
}

function splitRow<Extra extends object>(row: object): { user: User; extra: Extra } {
  const user: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (Object.hasOwn(USER_COLUMN_SQL, key)) user[key] = value;
    else if (key !== "sessionExpiresAt") extra[key] = value;
  }
  return { user: user as User, extra: extra as Extra };
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
  if (!isEffectiveAdmin(user)) throw apiError(403, "You need to be logged in as an admin to perform this action.");
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
  if (!isEffectiveAdmin(user)) throw redirect("/");
  return user;
}

/** Removes expired sessions; run by the periodic housekeeping job. */
export async function deleteExpiredSessions(now = new Date()): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
