// Sessions: a signed cookie holds only a random session id; the session row lives in the
// database, so logout, restriction and "sign out everywhere" take effect at once.
// The redirecting guards of UI routes live in app/session-guards.server.ts.
import { createHash, randomBytes } from "node:crypto";
import { db, queryRows } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { DomainError } from "~/models/errors";
import { clearCookie, readCookieValue, sessionCookie, SESSION_TTL_MS } from "~/utils/auth-cookies.server";
import { isEffectiveAdmin } from "~/utils/entitlement";

export { SESSION_TTL_MS };

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
  return clearCookie(sessionCookie());
}

/** The id of the request's cookie session, or null. */
export function readSessionId(request: Request): Promise<string | null> {
  return readCookieValue(sessionCookie(), request);
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
  const authorization = request.headers.get("Authorization");
  const cookie = request.headers.get("Cookie");
  if (!authorization && !cookie) return null;
  // Remix runs the root's and the page's loaders together, and each asks for the user: the second
  // joins the first's lookup while it is in flight. Forgotten once answered, so no later request
  // is ever answered from it.
  const key = `${authorization ?? ""}\n${cookie ?? ""}\n${viewer ? `${viewer.withDownloads ?? false},${viewer.withLibraryStamp ?? false}` : "-"}`;
  let lookup = lookupsInFlight.get(key);
  if (!lookup) {
    lookup = lookUpUser(request, viewer).finally(() => lookupsInFlight.delete(key));
    lookupsInFlight.set(key, lookup);
  }
  const found = await lookup;
  // Each caller gets its own objects: one loader changing its copy must not reach another's.
  return found ? { user: { ...found.user }, extra: { ...found.extra } as Extra } : null;
}

/** Session lookups in flight, by the credentials' headers and the columns asked (see getCurrentUserWith). */
const lookupsInFlight = new Map<string, Promise<{ user: User; extra: object } | null>>();

async function lookUpUser(request: Request, viewer: ViewerColumnsRequest | null): Promise<{ user: User; extra: object } | null> {
  const flags = [viewer?.withDownloads ?? false, viewer?.withLibraryStamp ?? false];
  const authorization = request.headers.get("Authorization");
  // The scheme is case-insensitive (RFC 9110), as in the cross-site guard of server/security.ts.
  const bearer = authorization ? /^bearer\s+(.*)$/is.exec(authorization) : null;
  if (bearer) {
    const token = bearer[1]!.trim();
    if (!token) return null;
    const extraColumns = viewer ? `, ${VIEWER_COLUMNS.map((column) => `v.${column}`).join(", ")}` : "";
    const join = viewer ? "CROSS JOIN LATERAL viewer_context(u.id, $2, $3) v" : "";
    const [row] = await queryRows<User>(
      `SELECT ${USER_COLUMNS}${extraColumns} FROM api_tokens t JOIN users u ON u.id = t.user_id ${join} WHERE t.token_hash = $1`,
      [hashToken(token), ...(viewer ? flags : [])],
    );
    return row ? splitRow(row) : null;
  }
  const id = await readSessionId(request);
  if (!id) return null;
  // One call of the database function `session_viewer` (migration 0005): its plan is kept per
  // server connection, which works through a transaction-mode pooler (docs/decisions/006).
  const extraColumns = viewer ? `, ${VIEWER_COLUMNS.map((column) => `r.${column}`).join(", ")}` : "";
  const [row] = await queryRows<User & { sessionExpiresAt: Date }>(
    `SELECT ${SESSION_USER_COLUMNS}, r.session_expires_at AS "sessionExpiresAt"${extraColumns} FROM session_viewer($1, $2, $3, $4) r`,
    [id, viewer !== null, ...flags],
  );
  if (!row) return null;
  if (row.sessionExpiresAt.getTime() <= Date.now()) {
    await db.session.deleteMany({ where: { id } });
    return null;
  }
  return splitRow(row);
}

function splitRow(row: object): { user: User; extra: object } {
  const user: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (Object.hasOwn(USER_COLUMN_SQL, key)) user[key] = value;
    else if (key !== "sessionExpiresAt") extra[key] = value;
  }
  return { user: user as User, extra };
}

export const NOT_AUTHENTICATED_MESSAGE = "Not authenticated";
const ADMIN_ONLY_MESSAGE = "You need to be logged in as an admin to perform this action.";

/** For `/api` routes (inside `handleApi`): the user, or a 401 refusal. */
export async function requireApiUser(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user) throw new DomainError(401, NOT_AUTHENTICATED_MESSAGE);
  return user;
}

/** For `/api` routes (inside `handleApi`): an admin, or a 401/403 refusal in the spec's words. */
export async function requireApiAdmin(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user) throw new DomainError(401, ADMIN_ONLY_MESSAGE);
  if (!isEffectiveAdmin(user)) throw new DomainError(403, ADMIN_ONLY_MESSAGE);
  return user;
}

/** Removes expired sessions; run by the periodic housekeeping job. */
export async function deleteExpiredSessions(now = new Date()): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
