// Support-platform tiers: data, not constants (which are paid, which label Subscribe buttons).
import { db } from "~/db.server";

export type ApiTier = { tierId: string; title: string; isPaid: boolean; subscribeLabel: string | null; amount_cents: number | null };

export async function listTiers(): Promise<ApiTier[]> {
  const tiers = await db.tier.findMany({ orderBy: [{ amountCents: "asc" }, { title: "asc" }] });
  return tiers.map((tier) => ({
    tierId: tier.id,
    title: tier.title,
    isPaid: tier.isPaid,
    subscribeLabel: tier.subscribeLabel,
    amount_cents: tier.amountCents,
  }));
}
