// Shop purchases: recorded from the shop webhook and from the creator's CSV export, keyed by
// the buyer's email. A purchase counts for every account that has verified that email
// (entitlement rule 6), also when it was made as a guest before the email was linked.
import { db, Prisma } from "~/db.server";
import {
  currencyCode,
  itemCodeFromShopUrl,
  KOFI_CSV_DATE_FORMATS,
  KofiCsvError,
  KofiPayloadError,
  kofiTokenMatches,
  parseKofiCsv,
  moneyToCents,
  parseKofiDate,
  parseKofiWebhook,
  type KofiWebhook,
} from "~/integrations/kofi.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { ADMIN_MESSAGES, isPurchaseCsvName } from "~/utils/admin-schemas";
import { emailSchema } from "~/utils/shop-schemas";

export type WebhookOutcome = { status: "duplicate" } | { status: "recorded"; type: string; purchases: number; usersWithTierUpdate: number };

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/**
 * A shop webhook delivery (its `data` field): checked against the shared token before anything is
 * stored, then recorded. Refuses a body that is not a delivery (400) and a wrong token (401).
 */
export async function receiveKofiWebhook(data: string, expectedToken: string | undefined): Promise<WebhookOutcome> {
  let payload: KofiWebhook;
  try {
    payload = parseKofiWebhook(data);
  } catch (error) {
    // A forged body may not even parse: never say more than "invalid" without a token.
    if (error instanceof KofiPayloadError) throw new DomainError(400, "Invalid webhook payload.");
    throw error;
  }
  if (!kofiTokenMatches(payload.verification_token, expectedToken)) throw new DomainError(401, "Invalid verification token.");
  return recordKofiWebhook(payload);
}

/**
 * Records one verified shop webhook delivery. A delivery whose `message_id` was already handled
 * changes nothing (the shop resends until it gets a 200).
 */
export async function recordKofiWebhook(payload: KofiWebhook): Promise<WebhookOutcome> {
  try {
    return await db.$transaction(async (tx) => {
      await tx.webhookDelivery.create({ data: { source: "KOFI", deliveryId: payload.message_id } });
      const email = payload.email?.toLowerCase() || null;
      let purchases = 0;
      let usersWithTierUpdate = 0;
      if (payload.type === "Shop Order" && email && payload.shop_items?.length) {
        const transactionId = payload.kofi_transaction_id || payload.message_id;
        const { count } = await tx.purchase.createMany({
          data: payload.shop_items.map((item) => ({
            email,
            kofiItemCode: item.direct_link_code,
            transactionId,
            source: "WEBHOOK" as const,
            purchasedAt: new Date(payload.timestamp),
            amountCents: payload.amount,
            currency: payload.currency,
          })),
          skipDuplicates: true,
        });
        purchases = count;
      }
      if ((payload.type === "Subscription" || payload.is_subscription_payment) && email) {
        const { count } = await tx.user.updateMany({
          where: { OR: [{ shopEmails: { some: { verifiedEmail: email } } }, { email, emailVerifiedBy: { not: null } }] },
          data: { kofiCurrentTier: payload.tier_name ?? null },
        });
        usersWithTierUpdate = count;
      }
      return { status: "recorded" as const, type: payload.type, purchases, usersWithTierUpdate };
    });
  } catch (error) {
    // Two deliveries of the same message racing: the loser sees the unique index.
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
}

// ---------------------------------------------------------------- CSV import

export type ImportReport = {
  imported: number;
  duplicates: number;
  /** Every row not imported and not a duplicate, with why (tips and commissions are not purchases). */
  rejected: { row: number; reason: string }[];
};

/** A malformed file: nothing was stored; `details` says why, `code` lets the page choose its words. */
function importRefusal(details: string, code: "not-csv" | "malformed"): DomainError {
  return new DomainError(400, ADMIN_MESSAGES.importFailed, { code, extra: { details } });
}

type ItemResolver = (item: string, reference: string) => string | null;

async function itemResolver(): Promise<ItemResolver> {
  const posts = await db.post.findMany({ where: { kofiId: { not: null } }, select: { kofiId: true, title: true } });
  const codes = new Set(posts.map((post) => post.kofiId!));
  const byTitle = new Map(posts.map((post) => [post.title.trim().toLowerCase(), post.kofiId!]));
  return (item, reference) => {
    for (const value of [item, reference]) {
      if (!value) continue;
      const fromUrl = itemCodeFromShopUrl(value);
      if (fromUrl) return fromUrl;
      if (codes.has(value)) return value;
      const titled = byTitle.get(value.toLowerCase());
      if (titled) return titled;
    }
    return null;
  };
}

/**
 * Imports the shop's transactions export. Every shop-order row becomes a purchase; rows already
 * recorded (same transaction and item) count as duplicates; rows that cannot be used are listed
 * with the reason. The whole file is one transaction: a malformed file changes nothing.
 */
export async function importPurchasesCsv(actorId: string | null, content: Buffer | string, fileName: string): Promise<ImportReport> {
  if (!isPurchaseCsvName(fileName)) throw importRefusal("Only .csv files can be imported.", "not-csv");
  let rows;
  try {
    rows = parseKofiCsv(content);
  } catch (error) {
    if (error instanceof KofiCsvError) throw importRefusal(error.message, "malformed");
    throw error;
  }
  const resolve = await itemResolver();
  const rejected: ImportReport["rejected"] = [];
  const candidates: {
    row: number;
    email: string;
    kofiItemCode: string;
    transactionId: string;
    purchasedAt: Date;
    amountCents: number | null;
    currency: string | null;
  }[] = [];
  for (const { row, fields } of rows) {
    const type = fields.TransactionType ?? "";
    if (type !== "Shop Order") {
      rejected.push({ row, reason: type ? `Not a shop order (${type}).` : "Missing transaction type." });
      continue;
    }
    const transactionId = fields.TransactionId ?? "";
    if (!transactionId) {
      rejected.push({ row, reason: "Missing transaction id." });
      continue;
    }
    const email = emailSchema.safeParse(fields.BuyerEmail ?? "");
    if (!email.success) {
      rejected.push({ row, reason: fields.BuyerEmail ? "Invalid buyer email." : "Missing buyer email." });
      continue;
    }
    const purchasedAt = parseKofiDate(fields["DateTime (UTC)"] ?? "");
    if (!purchasedAt) {
      rejected.push({ row, reason: `Invalid date "${fields["DateTime (UTC)"] ?? ""}" (expected ${KOFI_CSV_DATE_FORMATS}).` });
      continue;
    }
    const kofiItemCode = resolve(fields.Item ?? "", fields.Reference ?? "");
    if (!kofiItemCode) {
      rejected.push({ row, reason: fields.Item ? `Unknown shop item "${fields.Item}".` : "Missing item." });
      continue;
    }
    candidates.push({
      row,
      email: email.data,
      kofiItemCode,
      transactionId,
      purchasedAt,
      amountCents: moneyToCents(fields.Received),
      currency: currencyCode(fields.Currency),
    });
  }

  return db.$transaction(
    async (tx) => {
      // Duplicates inside the file itself, then against what is already stored.
      const seen = new Set<string>();
      const unique = candidates.filter((candidate) => {
        const key = `${candidate.transactionId}\u0000${candidate.kofiItemCode}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      const { count } = await tx.purchase.createMany({
        data: unique.map(({ row: _row, ...data }) => ({ ...data, source: "CSV" as const })),
        skipDuplicates: true,
      });
      const report: ImportReport = { imported: count, duplicates: candidates.length - count, rejected };
      await recordAudit({ actorId, action: "purchases.import", targetType: "purchase", targetId: null, after: { fileName, ...report } }, tx);
      return report;
    },
    { timeout: 60_000 },
  );
}
