// Support-platform tiers: data, not constants (which are paid, which label Subscribe buttons).
import { createCache } from "~/cache.server";
import { queryRows } from "~/db.server";

export type ApiTier = { tierId: string; title: string; isPaid: boolean; subscribeLabel: string | null; amount_cents: number | null; currency: string };

/**
 * Every tier, cheapest first. Plain SQL because the library page reads it on every request, and a
 * Prisma query costs about a millisecond of CPU to compile (same reason as the session lookup).
 */
export async function listTiers(): Promise<ApiTier[]> {
  return queryRows<ApiTier>(
    `SELECT id AS "tierId", title, is_paid AS "isPaid", subscribe_label AS "subscribeLabel", amount_cents AS "amount_cents", currency
     FROM tiers ORDER BY amount_cents ASC NULLS LAST, title ASC`,
    [],
  );
}

/** The tiers at one library version (app/cache.server.ts): a change to the tiers bumps it (migration 0035). */
const tiersAtVersion = createCache<readonly ApiTier[]>(1);

/**
 * Every tier, read again only when the library version (`stamp`, read with the viewer) has
 * changed since the last read, so every app server rereads them on its next page view. Tiers
 * read after the stamp are at least as new as it. Shared by every request, so frozen.
 */
export async function listTiersAt(stamp: string): Promise<readonly ApiTier[]> {
  const read = async () => ({ value: Object.freeze((await listTiers()).map((tier) => Object.freeze(tier))) });
  if (!stamp) return (await read()).value;
  return tiersAtVersion.get("tiers", stamp, read);
}
