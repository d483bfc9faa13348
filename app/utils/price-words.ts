// Prices as the Subscribe and shop buttons show them (docs/product.md#prices), without zod.

/**
 * One formatter per currency and precision: making an `Intl.NumberFormat` costs far more than
 * formatting with it (about 1 ms of a library page's render went to making them per card).
 */
const priceFormats = new Map<string, Intl.NumberFormat | null>();

function priceFormat(currency: string, whole: boolean): Intl.NumberFormat | null {
  const key = `${currency}\n${whole}`;
  let format = priceFormats.get(key);
  if (format === undefined) {
    const digits = whole ? 0 : 2;
    try {
      format = new Intl.NumberFormat("en-US", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    } catch {
      format = null; // not a currency code Intl knows
    }
    // Bounded: currencies come from the admins' catalogue, but a stray code must not grow it forever.
    if (priceFormats.size < 64) priceFormats.set(key, format);
  }
  return format;
}

/** "$5", "$4.50", "€3", "12 SEK": a price for a button. */
export function formatPrice(cents: number, currency: string): string {
  const whole = cents % 100 === 0;
  const format = priceFormat(currency, whole);
  return format ? format.format(cents / 100) : `${(cents / 100).toFixed(whole ? 0 : 2)} ${currency}`;
}
