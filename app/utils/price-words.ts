// Prices as the Subscribe and shop buttons show them (docs/product.md#prices), without zod.
import { boundedMemo } from "./bounded-memo";

/**
 * One formatter per currency and precision: making an `Intl.NumberFormat` costs far more than
 * formatting with it (about 1 ms of a library page's render went to making them per card).
 */
const priceFormats = boundedMemo<Intl.NumberFormat | null>(64);

function priceFormat(currency: string, whole: boolean): Intl.NumberFormat | null {
  return priceFormats(`${currency}\n${whole}`, () => {
    const digits = whole ? 0 : 2;
    try {
      return new Intl.NumberFormat("en-US", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    } catch {
      return null; // not a currency code Intl knows
    }
  });
}

/** "$5", "$4.50", "€3", "12 SEK": a price for a button. */
export function formatPrice(cents: number, currency: string): string {
  const whole = cents % 100 === 0;
  const format = priceFormat(currency, whole);
  return format ? format.format(cents / 100) : `${(cents / 100).toFixed(whole ? 0 : 2)} ${currency}`;
}
