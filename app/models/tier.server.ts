// Support-platform tiers: data, not constants (which are paid, which label Subscribe buttons).
import { queryRows } from "~/db.server";

export type ApiTier = { tierId: string; title: string; isPaid: boolean; subscribeLabel: string | null; amount_cents: number | null };

/**
 * Every tier, cheapest first. Plain SQL because the library page reads it on every request, and a
 * Prisma query costs about a millisecond of CPU to compile (same reason as the session lookup).
 */
export async function listTiers(): Promise<ApiTier[]> {
  return queryRows<ApiTier>(
    `SELECT id AS "tierId", title, is_paid AS "isPaid", subscribe_label AS "subscribeLabel", amount_cents AS "amount_cents"
     FROM tiers ORDER BY amount_cents ASC NULLS LAST, title ASC`,
    [],
  );
}
