// Sessions: a signed cookie holds only a random session id; the session row lives in the
// database, so logout, restriction and "sign out everywhere" take effect at once.
// The redirecting guards of UI routes live in app/session-guards.server.ts.
import { createHash, randomBytes } from "node:crypto";
import { db, queryRows } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { DomainError } from "~/models/errors";
import { clearCookie, readCookieValue, sessionCookie, SESSION_TTL_MS } from "~/utils/auth-cookies.server";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { noteRequestAccount } from "~/request-context.server";
import { markSent, sharedReads, type SharedRead } from "~/shared-reads.server";

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

/** The account of the request's cookie session (never a personal API token), or null. */
export async function sessionUserId(request: Request): Promise<string | null> {
  const id = await readSessionId(request);
  if (!id) return null;
  const session = await db.session.findUnique({ where: { id }, select: { userId: true, expiresAt: true } });
  if (!session || session.expiresAt.getTime() <= Date.now()) return null;
  noteRequestAccount(session.userId);
  return session.userId;
}

/**
 * Ends the request's session (if the account's sessions have not all ended already) and starts a
 * new one for the user; answers its Set-Cookie header value. For a browser that stays signed in
 * across a change that ends every session of the account.
 */
export async function renewUserSession(request: Request, userId: string): Promise<string> {
  const id = await readSessionId(request);
  if (id) await db.session.deleteMany({ where: { id } });
  return createUserSession(userId);
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

/**
 * What a caller may ask to read beside the request's user, in the same round trip: the viewer
 * context (`viewer_context`, prisma/functions/viewer_context.sql), with the viewer's downloads and the library stamp
 * when asked, and the details of access explained (`viewer_access_details`, prisma/functions/viewer_access_details.sql).
 */
export type ViewerColumnsRequest = { withDownloads: boolean; withLibraryStamp: boolean; withAccessDetails?: boolean };
const VIEWER_COLUMNS = ["unlocked", "purchases", "pledges", "downloads", "stamp", "voted"] as const;

/**
 * The columns of `viewer_access_details` (prisma/functions/viewer_access_details.sql, joined as `d`), named apart from the
 * viewer context's (whose `purchases` are item codes). app/models/access.server.ts reads them
 * under these names. Read with the session, the last two are null: they serve only the admins'
 * check (`withAccessDetails` asks for what a library card shows).
 */
export const ACCESS_DETAIL_COLUMNS = `d.purchases AS "purchaseDetails", d.unverified AS "unverifiedPurchases", d.grants AS "grantSources", d.tiers AS "tierTitles"`;
export type AccessDetailsRow = { purchaseDetails: string | null; unverifiedPurchases: string | null; grantSources: string | null; tierTitles: string | null };
const ACCESS_DETAIL_FIELDS = ["purchaseDetails", "unverifiedPurchases", "grantSources", "tierTitles"] as const;

/** The columns a lookup reads: the union of what its callers asked before it was sent. */
type Asked = { viewer: boolean; downloads: boolean; stamp: boolean; details: boolean };

function asked(request: ViewerColumnsRequest | null): Asked {
  return {
    viewer: request !== null,
    downloads: request?.withDownloads ?? false,
    stamp: request?.withLibraryStamp ?? false,
    details: request?.withAccessDetails ?? false,
  };
}

function covers(have: Asked, want: Asked): boolean {
  return (Object.keys(want) as (keyof Asked)[]).every((column) => have[column] || !want[column]);
}

type Found = { user: User; extra: Record<string, unknown> };
type Lookup = SharedRead<Asked, Found | null>;

/** A token's `last_used_at` is written at most this often (an SQL interval). */
const TOKEN_USE_WRITE_INTERVAL = "interval '1 minute'";

/** The logged-in user of a request (session cookie or personal API token), or null. */
export async function getCurrentUser(request: Request): Promise<User | null> {
  return (await getCurrentUserWith(request, null))?.user ?? null;
}

/**
 * The request's user and, when asked, their viewer context (and the details of access
 * explained) in one round trip: the listing reads the viewer's entitlements this way.
 */
export async function getCurrentUserWith<Extra extends object>(
  request: Request,
  viewer: ViewerColumnsRequest | null,
): Promise<{ user: User; extra: Extra } | null> {
  const authorization = request.headers.get("Authorization");
  const cookie = request.headers.get("Cookie");
  if (!authorization && !cookie) return null;
  const want = asked(viewer);
  const found = await sharedLookups(`${authorization ?? ""}\n${cookie ?? ""}`, want, (lookup) => lookUpUser(request, lookup));
  if (found) noteRequestAccount(found.user.id);
  // Each caller gets its own objects, with only the columns it asked for: one loader changing its
  // copy must not reach another's, and a wider lookup must not change what a caller sees.
  return found ? { user: { ...found.user }, extra: columnsAsked(found.extra, want) as Extra } : null;
}

function columnsAsked(extra: Record<string, unknown>, want: Asked): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (want.viewer) {
    for (const column of VIEWER_COLUMNS) kept[column] = extra[column];
    // Columns the function leaves empty when not asked, as it would have for this caller.
    if (!want.downloads) kept.downloads = null;
    if (!want.stamp) kept.stamp = "";
  }
  if (want.details) for (const column of ACCESS_DETAIL_FIELDS) kept[column] = extra[column];
  return kept;
}

/**
 * Session lookups shared by callers with the same credentials' headers (the root's and the page's
 * loaders of a request, a client's parallel requests), never answered from a read sent before the
 * caller's request arrived (app/shared-reads.server.ts).
 */
const sharedLookups = sharedReads<Asked, Found | null>({
  covers,
  widen: (have, want) => ({
    viewer: have.viewer || want.viewer,
    downloads: have.downloads || want.downloads,
    stamp: have.stamp || want.stamp,
    details: have.details || want.details,
  }),
});

/** Reads the user with the columns `lookup` asks for when its query is sent (later asks may widen them until then). */
async function lookUpUser(request: Request, lookup: Lookup): Promise<Found | null> {
  const authorization = request.headers.get("Authorization");
  // The scheme is case-insensitive (RFC 9110), as in the cross-site guard of server/security.ts.
  const bearer = authorization ? /^bearer\s+(.*)$/is.exec(authorization) : null;
  if (bearer) {
    const token = bearer[1]!.trim();
    if (!token) return null;
    markSent(lookup);
    const { viewer, downloads, stamp, details } = lookup.asked;
    const joins = `${viewer ? " CROSS JOIN LATERAL viewer_context(u.id, $2, $3) v" : ""}${details ? " CROSS JOIN LATERAL viewer_access_details(u.id, false) d" : ""}`;
    // The token's last use is written in the same statement (still one round trip), at most once a
    // minute per token: a sync run's many requests do not each write the row.
    const [row] = await queryRows<User>(
      `WITH t AS (SELECT id, user_id FROM api_tokens WHERE token_hash = $1 AND expires_at > timezone('UTC', now())),` +
        ` used AS (UPDATE api_tokens SET last_used_at = timezone('UTC', now()) WHERE id IN (SELECT id FROM t)` +
        ` AND (last_used_at IS NULL OR last_used_at < timezone('UTC', now()) - ${TOKEN_USE_WRITE_INTERVAL}))` +
        ` SELECT ${USER_COLUMNS}${extraColumns(lookup.asked, "v")} FROM t JOIN users u ON u.id = t.user_id${joins}`,
      [hashToken(token), ...(viewer ? [downloads, stamp] : [])],
    );
    return row ? splitRow(row) : null;
  }
  const id = await readSessionId(request);
  if (!id) return null;
  markSent(lookup);
  const { viewer, downloads, stamp, details } = lookup.asked;
  // One call of the database function `session_viewer` (prisma/functions/session_viewer.sql): its plan is kept per
  // server connection, which works through a transaction-mode pooler (docs/decisions/006).
  const join = details ? " CROSS JOIN LATERAL viewer_access_details((r.account).id, false) d" : "";
  const [row] = await queryRows<User & { sessionExpiresAt: Date }>(
    `SELECT ${SESSION_USER_COLUMNS}, r.session_expires_at AS "sessionExpiresAt"${extraColumns(lookup.asked, "r")} FROM session_viewer($1, $2, $3, $4) r${join}`,
    [id, viewer, downloads, stamp],
  );
  if (!row) return null;
  if (row.sessionExpiresAt.getTime() <= Date.now()) {
    await db.session.deleteMany({ where: { id } });
    return null;
  }
  return splitRow(row);
}

/** The asked columns beyond the user's: the viewer context's (read from `viewerRow`) and the access details (`d`). */
function extraColumns(asked: Asked, viewerRow: string): string {
  const columns = [...(asked.viewer ? VIEWER_COLUMNS.map((column) => `${viewerRow}.${column}`) : []), ...(asked.details ? [ACCESS_DETAIL_COLUMNS] : [])];
  return columns.map((column) => `, ${column}`).join("");
}

function splitRow(row: object): Found {
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

/**
 * The account of the request's cookie session, for what a personal API token must never do for
 * itself (make, list or revoke tokens): a request that carries `Authorization` at all is refused
 * (403 `sessionOnlyMessage`), whatever cookie comes with it; no session is a 401.
 */
export async function requireSessionUser(request: Request, sessionOnlyMessage: string): Promise<User> {
  if (request.headers.has("Authorization")) throw new DomainError(403, sessionOnlyMessage);
  const user = await getCurrentUser(request);
  if (!user) throw new DomainError(401, NOT_AUTHENTICATED_MESSAGE);
  return user;
}

/** For `/api` routes (inside `handleApi`): an admin, or a 401/403 refusal in the spec's words. */
export async function requireApiAdmin(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (isEffectiveAdmin(user)) return user;
  throw adminRefusal(user);
}

/** The refusal of someone who is not an admin (a restricted one included): 401 signed out, else 403. */
export function adminRefusal(user: User | null): DomainError {
  return new DomainError(user ? 403 : 401, ADMIN_ONLY_MESSAGE);
}

/** Removes expired sessions; run by the periodic housekeeping job. */
export async function deleteExpiredSessions(now = new Date()): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
