// The shop platform (Ko-fi): its webhook payload and its transactions CSV export, parsed into
// plain values. Nothing here touches the database.
import { createHash, timingSafeEqual } from "node:crypto";
import { parse } from "csv-parse/sync";
import { z } from "zod";
import { PURCHASE_CSV_REQUIRED_COLUMNS } from "~/utils/purchase-csv-columns";

const shopItemSchema = z.object({
  direct_link_code: z.string().trim().min(1),
  variation_name: z.string().nullish(),
  quantity: z.coerce.number().int().nullish(),
});

/** The JSON inside the webhook's `data` form field (only the fields we use are required). */
export const kofiWebhookSchema = z
  .object({
    verification_token: z.string(),
    message_id: z.string().trim().min(1),
    // RFC 3339 in practice; anything unreadable falls back to the time of receipt rather than
    // refusing the delivery (a refused delivery is resent forever and the purchase is lost).
    timestamp: z
      .string()
      .nullish()
      .transform((value) => {
        const date = value ? new Date(value) : null;
        return date && !Number.isNaN(date.getTime()) ? date.toISOString() : new Date().toISOString();
      }),
    type: z.string(),
    email: z.string().trim().nullish(),
    kofi_transaction_id: z.string().trim().nullish(),
    // Items without a usable code are dropped rather than refusing the whole order.
    shop_items: z
      .array(z.unknown())
      .nullish()
      .transform((items) =>
        (items ?? []).flatMap((item) => {
          const parsed = shopItemSchema.safeParse(item);
          return parsed.success ? [parsed.data] : [];
        }),
      ),
    tier_name: z.string().nullish(),
    is_subscription_payment: z.boolean().nullish(),
    // What the order cost, for the shop figures of Insights; unreadable values are dropped, never refused.
    amount: z.unknown().transform((value) => moneyToCents(value)),
    currency: z.unknown().transform((value) => currencyCode(value)),
  })
  .passthrough();

export type KofiWebhook = z.infer<typeof kofiWebhookSchema>;

/** "4.99" or 4.99 as 499 cents; null when absent or not a non-negative amount. */
export function moneyToCents(value: unknown): number | null {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  const cents = Math.round(Number(text) * 100);
  return Number.isSafeInteger(cents) ? cents : null;
}

/** A three-letter currency code in capitals, or null. */
export function currencyCode(value: unknown): string | null {
  return typeof value === "string" && /^[A-Za-z]{3}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

export class KofiPayloadError extends Error {}

/** Parses the `data` field of a webhook delivery; throws KofiPayloadError when it is not one. */
export function parseKofiWebhook(data: string): KofiWebhook {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new KofiPayloadError("data is not JSON");
  }
  const parsed = kofiWebhookSchema.safeParse(json);
  if (!parsed.success) throw new KofiPayloadError(parsed.error.issues[0]?.message ?? "invalid payload");
  return parsed.data;
}

/** Constant-time comparison of the shared token (hashing first makes the lengths equal). */
export function kofiTokenMatches(given: string, expected: string | undefined): boolean {
  if (!expected) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

// ---------------------------------------------------------------- CSV export

export const KOFI_CSV_REQUIRED_HEADERS = PURCHASE_CSV_REQUIRED_COLUMNS;

export class KofiCsvError extends Error {}

export type KofiCsvRow = {
  /** Line-independent row number: 1 is the first data row after the header. */
  row: number;
  fields: Record<string, string>;
};

function normaliseHeader(header: string): string {
  return header
    .replace(/^\uFEFF/, "")
    .trim()
    .toLowerCase();
}

const DELIMITERS = [",", ";", "\t"] as const;

/**
 * The file's field separator, read from its header line: the one that yields the most required
 * column names (a spreadsheet in a comma-decimal locale saves with semicolons), then the most
 * fields; a comma when nothing tells.
 */
export function csvDelimiter(content: Buffer | string): string {
  const text = typeof content === "string" ? content.slice(0, 8192) : content.subarray(0, 8192).toString("utf8");
  const header = text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const required = KOFI_CSV_REQUIRED_HEADERS.map(normaliseHeader);
  let best: { delimiter: string; known: number; fields: number } = { delimiter: ",", known: -1, fields: 0 };
  for (const delimiter of DELIMITERS) {
    const names = header.split(delimiter).map((name) => normaliseHeader(name.replace(/^"|"$/g, "")));
    const known = names.filter((name) => required.includes(name)).length;
    if (known > best.known || (known === best.known && names.length > best.fields)) best = { delimiter, known, fields: names.length };
  }
  return best.delimiter;
}

/**
 * Parses the export into rows keyed by the canonical header names (comma-, semicolon- or
 * tab-separated: see csvDelimiter). Headers are matched by name
 * (case and surrounding spaces ignored); extra columns are kept; a missing required column or
 * a malformed file throws KofiCsvError.
 */
export function parseKofiCsv(content: Buffer | string): KofiCsvRow[] {
  let records: string[][];
  try {
    records = parse(content, { bom: true, skip_empty_lines: true, relax_column_count: false, delimiter: csvDelimiter(content) });
  } catch (error) {
    throw new KofiCsvError(`The file is not valid CSV (${error instanceof Error ? error.message : "parse error"}).`);
  }
  const [header, ...body] = records;
  if (!header) throw new KofiCsvError("The file is empty.");
  const names = header.map(normaliseHeader);
  const missing = KOFI_CSV_REQUIRED_HEADERS.filter((required) => !names.includes(normaliseHeader(required)));
  if (missing.length > 0) throw new KofiCsvError(`Missing column(s): ${missing.join(", ")}.`);
  const canonical = new Map<string, string>(KOFI_CSV_REQUIRED_HEADERS.map((name) => [normaliseHeader(name), name]));
  for (const extra of ["From", "Message", "Received", "Given", "Currency", "Reference", "SalesTax"]) {
    canonical.set(normaliseHeader(extra), extra);
  }
  return body.map((record, index) => {
    const fields: Record<string, string> = {};
    names.forEach((name, column) => {
      fields[canonical.get(name) ?? header[column]!.trim()] = (record[column] ?? "").trim();
    });
    return { row: index + 1, fields };
  });
}

/** The date formats the CSV import takes, as the admin form and the rejection reasons name them. */
export const KOFI_CSV_DATE_FORMATS = "MM/DD/YYYY HH:MM:SS or YYYY-MM-DD HH:MM:SS, UTC";

const KOFI_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
// ISO 8601 with a space or a T, seconds optional; a zone is optional and UTC when absent.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A calendar date and time in UTC; null when a part is out of range (02/31 is not March 3). */
function utcDate(year: string, month: string, day: string, hour = "0", minute = "0", second = "0"): Date | null {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)));
  const valid =
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59;
  return valid ? date : null;
}

/**
 * `MM/DD/YYYY HH:MM[:SS]` (Ko-fi's export) or ISO `YYYY-MM-DD[ T]HH:MM[:SS]` (what a spreadsheet
 * re-saves), both UTC unless the ISO value names its zone; null when neither.
 */
export function parseKofiDate(value: string): Date | null {
  const text = value.trim();
  const kofi = KOFI_DATE.exec(text);
  if (kofi) {
    const [, month, day, year, hour, minute, second] = kofi;
    return utcDate(year!, month!, day!, hour, minute, second);
  }
  const iso = ISO_DATE.exec(text);
  if (!iso) return null;
  const [, year, month, day, hour, minute, second, zone] = iso;
  const date = utcDate(year!, month!, day!, hour, minute, second);
  if (!date || !zone || zone.toUpperCase() === "Z") return date;
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  const minutes = (Number(offset[2]) * 60 + Number(offset[3])) * (offset[1] === "-" ? -1 : 1);
  if (Number(offset[2]) > 14 || Number(offset[3]) > 59) return null;
  return new Date(date.getTime() - minutes * 60_000);
}

/** The item code of a shop address (`https://ko-fi.com/s/<code>`), or null. */
export function itemCodeFromShopUrl(value: string): string | null {
  const match = /(?:^|\/)s\/([A-Za-z0-9]+)\/?(?:[?#].*)?$/.exec(value.trim());
  return match ? match[1]! : null;
}
