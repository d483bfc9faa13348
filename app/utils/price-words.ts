// Prices as the Subscribe and shop buttons show them (docs/product.md#prices), without zod.

/** "$5", "$4.50", "€3", "12 SEK": a price for a button. */
export function formatPrice(cents: number, currency: string): string {
  const whole = cents % 100 === 0;
  try {
    return new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      minimumFractionDigits: whole ? 0 : 2,
      maximumFractionDigits: whole ? 0 : 2,
    }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(whole ? 0 : 2)} ${currency}`;
  }
}
