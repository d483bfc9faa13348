// Shop insights: items bought per month and, where the webhook or CSV carried it, revenue per
// currency. The shop reports one amount per order, stored on each of its items, so revenue
// counts each transaction once.
import { queryRows } from "~/db.server";
import { monthsOf } from "~/models/insights/months";
import type { DataTable, InsightsRange } from "~/utils/insights-schemas";

export type ShopMonth = { month: string; purchases: number; orders: number; ordersWithoutAmount: number; revenueCents: Record<string, number> };
export type ShopByMonth = { currencies: string[]; months: ShopMonth[] };

export async function shopByMonth(range: InsightsRange): Promise<ShopByMonth> {
  const [counts, revenue] = await Promise.all([
    queryRows<{ month: string; purchases: number; orders: number; without_amount: number }>(
      `SELECT to_char(purchased_at, 'YYYY-MM') AS month, count(*)::int AS purchases, count(DISTINCT transaction_id)::int AS orders,
              count(DISTINCT transaction_id) FILTER (WHERE amount_cents IS NULL)::int AS without_amount
         FROM purchases WHERE purchased_at >= $1::date AND purchased_at < $2::date GROUP BY 1`,
      [range.from, range.to],
    ),
    queryRows<{ month: string; currency: string; cents: string }>(
      `SELECT to_char(purchased_at, 'YYYY-MM') AS month, currency, sum(amount_cents)::bigint AS cents FROM (
         SELECT DISTINCT ON (transaction_id) transaction_id, purchased_at, upper(coalesce(currency, '?')) AS currency, amount_cents
           FROM purchases WHERE purchased_at >= $1::date AND purchased_at < $2::date AND amount_cents IS NOT NULL
          ORDER BY transaction_id, purchased_at
       ) orders GROUP BY 1, 2`,
      [range.from, range.to],
    ),
  ]);
  const currencies = [...new Set(revenue.map((row) => row.currency))].sort();
  const months = monthsOf(range).map(({ month }): ShopMonth => {
    const count = counts.find((row) => row.month === month);
    const revenueCents: Record<string, number> = Object.fromEntries(currencies.map((currency) => [currency, 0]));
    for (const row of revenue) if (row.month === month) revenueCents[row.currency] = Number(row.cents);
    return { month, purchases: count?.purchases ?? 0, orders: count?.orders ?? 0, ordersWithoutAmount: count?.without_amount ?? 0, revenueCents };
  });
  return { currencies, months };
}

export function formatCents(cents: number): string {
  return (cents / 100).toFixed(2);
}

export function shopTable({ currencies, months }: ShopByMonth): DataTable {
  return {
    columns: ["Month", "Items bought", "Orders", ...currencies.map((currency) => `Revenue (${currency})`), "Orders without an amount"],
    rows: months.map((month) => [
      month.month,
      month.purchases,
      month.orders,
      ...currencies.map((currency) => formatCents(month.revenueCents[currency] ?? 0)),
      month.ordersWithoutAmount,
    ]),
  };
}
