// Personal API tokens (`Authorization: Bearer`, stored hashed in api_tokens): how long one lives
// and when they all end. The bearer lookup itself is in session.server.ts.
import { db, type Prisma } from "~/db.server";

/**
 * Days a token lives from its creation. The column's default (migration
 * 0038_api_token_expiry) says the same, so a row inserted by hand expires too.
 */
export const API_TOKEN_LIFETIME_DAYS = 90;

/**
 * Ends every API token of the account: a changed, first or reset password is often a reaction
 * to someone else having had access. A Prisma query (pass the transaction client inside one), so
 * it commits with the password or not at all.
 */
export function revokeApiTokens(userId: string, client: Pick<Prisma.TransactionClient, "apiToken"> = db) {
  return client.apiToken.deleteMany({ where: { userId } });
}

/** Removes expired tokens; run by housekeeping (the lookup already refuses them). */
export async function deleteExpiredApiTokens(now = new Date()): Promise<number> {
  const { count } = await db.apiToken.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
