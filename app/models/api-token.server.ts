// Personal API tokens (`Authorization: Bearer`, stored hashed in api_tokens): made, listed and
// revoked by their owner from a signed-in session, how long one lives and when they all end. The
// bearer lookup itself is in session.server.ts.
import { randomBytes } from "node:crypto";
import { db, type Prisma } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { hasProvenEmail, UNPROVEN_EMAIL_MESSAGE } from "~/models/account.server";
import { DomainError } from "~/models/errors";
import { RESTRICTED_MESSAGE } from "~/models/restriction.server";
import { hashToken } from "~/models/session.server";
import { API_TOKEN_MESSAGES, apiTokenLabelSchema, MAX_API_TOKENS_PER_ACCOUNT } from "~/utils/api-token-schemas";
import { parseInput } from "~/utils/input-words";

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

/** A token as its owner sees it in the list: never its secret (only a hash is stored). */
export type ApiTokenSummary = { id: string; label: string; created_at: string; last_used_at: string | null; expires_at: string };

/** A token right after it was made: the only answer that carries its secret. */
export type NewApiToken = { id: string; label: string; token: string; expires_at: string };

type TokenOwner = Pick<User, "id" | "email" | "emailVerifiedBy" | "restricted">;

/**
 * Who may manage personal tokens: an account whose email is proven (a token is a way into the
 * account, like a shop email or the feed link). The session-only rule is the caller's guard
 * (`requireSessionUser`).
 */
function requireProvenOwner(user: TokenOwner): void {
  if (!hasProvenEmail(user)) throw new DomainError(403, UNPROVEN_EMAIL_MESSAGE);
}

/** 32 random bytes, base64url, behind a prefix that makes a leaked token easy to recognise. */
function newSecret(): string {
  return `clt_${randomBytes(32).toString("base64url")}`;
}

/**
 * Makes a token for the account and answers its secret, once: only its hash is stored. Refused
 * for a restricted account, an unproven email, an invalid label, and past
 * MAX_API_TOKENS_PER_ACCOUNT live tokens (counted under a lock of the account's row, so two
 * requests at once cannot both pass the limit).
 */
export async function createApiToken(user: TokenOwner, input: unknown): Promise<NewApiToken> {
  requireProvenOwner(user);
  if (user.restricted) throw new DomainError(403, RESTRICTED_MESSAGE);
  const parsed = parseInput(apiTokenLabelSchema, input);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? API_TOKEN_MESSAGES.labelRequired;
    throw new DomainError(400, message, { fields: { label: message } });
  }
  const token = newSecret();
  const row = await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${user.id} FOR UPDATE`;
    const live = await tx.apiToken.count({ where: { userId: user.id, expiresAt: { gt: new Date() } } });
    if (live >= MAX_API_TOKENS_PER_ACCOUNT) throw new DomainError(409, API_TOKEN_MESSAGES.tooMany);
    return tx.apiToken.create({ data: { userId: user.id, tokenHash: hashToken(token), label: parsed.data.label } });
  });
  return { id: row.id, label: row.label ?? "", token, expires_at: row.expiresAt.toISOString() };
}

/** The account's live tokens, newest first, without their secrets. */
export async function listApiTokens(user: TokenOwner): Promise<ApiTokenSummary[]> {
  requireProvenOwner(user);
  const rows = await db.apiToken.findMany({
    where: { userId: user.id, expiresAt: { gt: new Date() } },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: { id: true, label: true, createdAt: true, lastUsedAt: true, expiresAt: true },
  });
  return rows.map((row) => ({
    id: row.id,
    label: row.label ?? "",
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt.toISOString(),
  }));
}

/** Ends one of the account's own tokens; another account's id is unknown here (404), like an id that never was. */
export async function revokeApiToken(user: TokenOwner, tokenId: string): Promise<void> {
  requireProvenOwner(user);
  const { count } = await db.apiToken.deleteMany({ where: { id: tokenId, userId: user.id } });
  if (count === 0) throw new DomainError(404, API_TOKEN_MESSAGES.notFound);
}
