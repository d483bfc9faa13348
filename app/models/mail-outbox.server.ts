// The mail outbox (docs/decisions/018-mail-outbox.md): every mail the app sends is first a row of
// mail_outbox, written in the transaction of the change that causes it, so a mail server that is
// down loses nothing. Senders (the "mail-outbox" job on every app server, and a request that just
// enqueued a code) claim due rows with FOR UPDATE SKIP LOCKED in one statement (no session state,
// so it works behind a transaction-mode pooler), send them, and mark them sent or due again later
// with exponential backoff, until sent or given up.
import { randomBytes } from "node:crypto";
import { db, Prisma, queryRows, sqlTimestamp } from "~/db.server";
import type { OutboxMail, OutboxMailStatus } from "~/generated/prisma/client";
import { sendMail, type OutgoingMail } from "~/integrations/mail.server";
import { log } from "~/logger.server";

/** A notice or digest not sent within this time is given up (a code gives up when it expires). */
export const MAIL_GIVE_UP_MS = 48 * 60 * 60 * 1000;
/** The first retry comes this long after a failure; each further one waits twice as long... */
export const RETRY_BASE_MS = 30_000;
/** ...up to this. */
export const RETRY_MAX_MS = 60 * 60 * 1000;
/**
 * A sender's claim lasts this long; a sender that died mid-send leaves its rows to be claimed
 * again after it. Longer than the SMTP timeouts of one message (mail.server.ts) put together.
 */
export const CLAIM_MS = 10 * 60 * 1000;
/** A code mail is given up this long before its code expires: a code must arrive usable. */
const CODE_MARGIN_MS = 60_000;
/** Sent and given-up rows are kept this long for the admin view, then deleted. */
export const OUTBOX_KEEP_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 20;
/** Batches one pass sends at most; the next pass (15 s later) goes on with the rest. */
const MAX_BATCHES = 50;

/** "fix": a bug a person reported (or said "me too" to) is fixed (app/models/bug-report.server.ts). */
export type MailKind = "code" | "release" | "digest" | "fix";

type Client = Prisma.TransactionClient | typeof db;

export type Enqueue = {
  /** Same key, same message: enqueueing it again does nothing. */
  key: string;
  kind: MailKind;
  mail: OutgoingMail;
  userId?: string | null;
  /** Enqueueing a message of a topic gives up the unsent older ones of that topic. */
  topic?: string | null;
  giveUpAt?: Date;
  now?: Date;
};

/**
 * Adds a message to the outbox, in the caller's transaction when given one. Returns its id, or
 * null when a message with this key already exists (nothing is added).
 */
export async function enqueueMail(
  client: Client,
  { key, kind, mail, userId = null, topic = null, giveUpAt, now = new Date() }: Enqueue,
): Promise<string | null> {
  if (topic) await giveUpTopic(client, topic, "Replaced by a newer message.", now);
  const rows = await client.outboxMail.createManyAndReturn({
    data: [
      {
        idempotencyKey: key,
        kind,
        topic,
        userId,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: mail.headers ?? Prisma.DbNull,
        nextAttemptAt: now,
        giveUpAt: giveUpAt ?? new Date(now.getTime() + MAIL_GIVE_UP_MS),
        createdAt: now,
      },
    ],
    skipDuplicates: true,
    select: { id: true },
  });
  return rows[0]?.id ?? null;
}

/** The topic of the mails of one code: a new code for the same purpose and target replaces them. */
export function codeTopic(purpose: string, target: string): string {
  return `code:${purpose}:${target.toLowerCase()}`;
}

/** A code mail: given up shortly before its code expires, replaced by the next code's mail. */
export function enqueueCodeMail(
  client: Client,
  {
    purpose,
    target,
    userId,
    mail,
    expiresAt,
    now = new Date(),
  }: { purpose: string; target: string; userId: string | null; mail: OutgoingMail; expiresAt: Date; now?: Date },
): Promise<string | null> {
  const topic = codeTopic(purpose, target);
  return enqueueMail(client, {
    key: `${topic}:${expiresAt.getTime()}`,
    kind: "code",
    mail,
    userId,
    topic,
    giveUpAt: new Date(expiresAt.getTime() - CODE_MARGIN_MS),
    now,
  });
}

/** Gives up the unsent messages of a topic (a withdrawn or replaced code); the bodies go. */
export async function giveUpTopic(client: Client, topic: string, reason: string, now = new Date()): Promise<number> {
  const { count } = await client.outboxMail.updateMany({
    where: { topic, OR: [{ status: "PENDING" }, { status: "SENDING", claimedUntil: { lte: now } }] },
    data: { status: "GIVEN_UP", gaveUpAt: now, lastError: reason, text: "", html: "", claimToken: null, claimedUntil: null },
  });
  return count;
}

/** Gives up the unsent notices and digests of an account (it unsubscribed): codes stay. */
export async function giveUpUpdateMails(client: Client, userId: string, reason: string, now = new Date()): Promise<number> {
  const { count } = await client.outboxMail.updateMany({
    where: { userId, kind: { in: ["release", "digest", "fix"] }, OR: [{ status: "PENDING" }, { status: "SENDING", claimedUntil: { lte: now } }] },
    data: { status: "GIVEN_UP", gaveUpAt: now, lastError: reason, text: "", html: "", claimToken: null, claimedUntil: null },
  });
  return count;
}

/** How long to wait after the `attempts`-th failed attempt. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/** Failures where the mail server never took the message and the next one would fail alike. */
const CONNECTION_CODES = new Set(["ECONNECTION", "EDNS", "ETIMEDOUT", "ESOCKET", "ETLS", "EAUTH", "ECONNREFUSED"]);

function errorText(error: unknown): string {
  const { code, responseCode, message } = error as { code?: unknown; responseCode?: unknown; message?: unknown };
  const parts = [typeof code === "string" ? code : null, typeof responseCode === "number" ? String(responseCode) : null].filter(Boolean);
  const text = `${parts.length ? `${parts.join(" ")}: ` : ""}${typeof message === "string" ? message : String(error)}`;
  return text.slice(0, 500);
}

/** The mail server refused the message for good (5xx): retrying would only be refused again. */
function refusedForGood(error: unknown): boolean {
  // Only the recipient or the message itself: a 5xx to the login (EAUTH) is the operator's
  // setting, and is retried until it is fixed.
  const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
  return (code === "EENVELOPE" || code === "EMESSAGE") && typeof responseCode === "number" && responseCode >= 500 && responseCode < 600;
}

function connectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && CONNECTION_CODES.has(code) && !refusedForGood(error);
}

/** Marks messages past their give-up time as given up, keeping their last error. */
async function giveUpExpired(now: Date): Promise<number> {
  const { count } = await db.outboxMail.updateMany({
    where: { giveUpAt: { lte: now }, OR: [{ status: "PENDING" }, { status: "SENDING", claimedUntil: { lte: now } }] },
    data: { status: "GIVEN_UP", gaveUpAt: now, text: "", html: "", claimToken: null, claimedUntil: null },
  });
  if (count > 0) {
    // Those never tried (or never failed) still say why they were given up.
    await db.outboxMail.updateMany({ where: { status: "GIVEN_UP", gaveUpAt: now, lastError: null }, data: { lastError: "Not sent before its give-up time." } });
    log().error({ count }, `mail outbox: ${count} message(s) given up unsent (see /admin/mail)`);
  }
  return count;
}

/**
 * Claims up to `limit` due messages (all of `ids` when given) for this sender: one UPDATE whose
 * rows come from a FOR UPDATE SKIP LOCKED subquery, so two senders never claim the same row, and
 * a row another sender is claiming at this instant is skipped, not waited for.
 */
async function claim(token: string, now: Date, limit: number, ids: string[] | null): Promise<OutboxMail[]> {
  const claimed = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE mail_outbox SET status = 'SENDING', claim_token = $1, claimed_until = $3::timestamp(3), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM mail_outbox
       WHERE give_up_at > $2::timestamp(3)
         AND ((status = 'PENDING' AND next_attempt_at <= $2::timestamp(3)) OR (status = 'SENDING' AND claimed_until <= $2::timestamp(3)))
         AND ($5::text[] IS NULL OR id = ANY($5::text[]))
       ORDER BY next_attempt_at, created_at
       LIMIT $4
       FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    token,
    sqlTimestamp(now),
    sqlTimestamp(new Date(now.getTime() + CLAIM_MS)),
    limit,
    ids,
  );
  if (claimed.length === 0) return [];
  return db.outboxMail.findMany({ where: { id: { in: claimed.map((row) => row.id) }, claimToken: token }, orderBy: { nextAttemptAt: "asc" } });
}

/** Records the outcome of one attempt; only while this sender's claim still holds. */
async function settle(message: OutboxMail, token: string, outcome: { sent: true } | { sent: false; error: string; forGood: boolean }, now: Date) {
  const mine = { id: message.id, claimToken: token, status: "SENDING" as const };
  if (outcome.sent) {
    await db.outboxMail.updateMany({ where: mine, data: { status: "SENT", sentAt: new Date(), text: "", html: "", claimToken: null, claimedUntil: null } });
  } else if (outcome.forGood) {
    await db.outboxMail.updateMany({
      where: mine,
      data: { status: "GIVEN_UP", gaveUpAt: now, lastError: outcome.error, text: "", html: "", claimToken: null, claimedUntil: null },
    });
  } else {
    await db.outboxMail.updateMany({
      where: mine,
      data: {
        status: "PENDING",
        nextAttemptAt: new Date(now.getTime() + retryDelayMs(message.attempts)),
        lastError: outcome.error,
        claimToken: null,
        claimedUntil: null,
      },
    });
  }
}

export type DeliveryRun = { sent: number; retrying: number; givenUp: number };

/**
 * One sender's pass: gives up what is past its time, then claims and sends due messages in
 * batches until none is due. With `ids`, only those messages (a request sending its own code at
 * once). After a failure to reach the mail server, the rest of the batch waits for its next
 * attempt without being tried: they would only fail alike.
 */
export async function deliverDueMail({ now, ids = null, limit = BATCH }: { now?: Date; ids?: string[] | null; limit?: number } = {}): Promise<DeliveryRun> {
  // Each batch reads the clock anew (unless a test fixes it): a claim must last CLAIM_MS from
  // when it is made, however long the batches before it took.
  const clock = () => now ?? new Date();
  // The sweep is the job's: a request sending its own code needs only the claim, which skips
  // whatever is past its give-up time anyway.
  const run: DeliveryRun = { sent: 0, retrying: 0, givenUp: ids ? 0 : await giveUpExpired(clock()) };
  const token = randomBytes(12).toString("hex");
  for (let round = 0; round < MAX_BATCHES; round++) {
    const batch = await claim(token, clock(), limit, ids);
    if (batch.length === 0) break;
    let down: string | null = null;
    for (const message of batch) {
      if (down) {
        await settle(message, token, { sent: false, error: down, forGood: false }, clock());
        run.retrying += 1;
        continue;
      }
      try {
        await sendMail({
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          headers: (message.headers ?? undefined) as Record<string, string> | undefined,
        });
      } catch (error) {
        const text = errorText(error);
        const forGood = refusedForGood(error);
        await settle(message, token, { sent: false, error: text, forGood }, clock());
        if (forGood) {
          run.givenUp += 1;
          log().error({ mailId: message.id, reason: text }, `mail outbox: the mail server refused message ${message.id} for good: ${text}`);
        } else {
          run.retrying += 1;
          log().warn({ mailId: message.id, reason: text }, `mail outbox: message ${message.id} not sent, retried later: ${text}`);
        }
        if (connectionFailure(error)) down = text;
        continue;
      }
      await settle(message, token, { sent: true }, clock());
      run.sent += 1;
    }
    if (down) break;
  }
  return run;
}

/**
 * Sends messages a request just enqueued, at once (the user waits for a code). A failure leaves
 * them queued for the sender job: the request answers as it would have.
 */
export async function sendQueuedNow(ids: (string | null)[]): Promise<DeliveryRun | null> {
  const own = ids.filter((id): id is string => id !== null);
  if (own.length === 0) return null;
  try {
    return await deliverDueMail({ ids: own });
  } catch (error) {
    log().warn({ reason: errorText(error) }, `mail outbox: sending at once failed, the sender job retries: ${errorText(error)}`);
    return null;
  }
}

/** Deletes sent and given-up messages older than OUTBOX_KEEP_MS; run by housekeeping. */
export async function pruneMailOutbox(now = new Date()): Promise<number> {
  const { count } = await db.outboxMail.deleteMany({
    where: { status: { in: ["SENT", "GIVEN_UP"] }, createdAt: { lt: new Date(now.getTime() - OUTBOX_KEEP_MS) } },
  });
  return count;
}

/**
 * The outbox's backlog for the metrics: messages not yet sent nor given up, and the age of the
 * oldest of them in seconds (0 when none waits). One query on the (status, next_attempt_at) index.
 */
export async function outboxBacklog(now = new Date()): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const [row] = await queryRows<{ depth: number; oldest: Date | null }>(
    `SELECT count(*)::int AS depth, min(created_at) AS oldest FROM mail_outbox WHERE status IN ('PENDING', 'SENDING')`,
    [],
  );
  const oldest = row?.oldest ?? null;
  return { depth: row?.depth ?? 0, oldestAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0 };
}

// ---------------------------------------------------------------- the admins' view

/** How the admin view names a row's state: pending rows that failed before are "retrying". */
export type OutboxState = "queued" | "retrying" | "sending" | "sent" | "given_up";

export type OutboxRow = {
  id: string;
  kind: string;
  to: string;
  subject: string;
  state: OutboxState;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
  giveUpAt: string;
  sentAt: string | null;
  gaveUpAt: string | null;
};

export type OutboxOverview = { counts: Record<OutboxState, number>; unsent: OutboxRow[]; givenUp: OutboxRow[] };

function stateOf(status: OutboxMailStatus, attempts: number): OutboxState {
  if (status === "PENDING") return attempts > 0 ? "retrying" : "queued";
  if (status === "SENDING") return "sending";
  return status === "SENT" ? "sent" : "given_up";
}

function toRow(message: Omit<OutboxMail, "text" | "html" | "headers">): OutboxRow {
  return {
    id: message.id,
    kind: message.kind,
    to: message.to,
    subject: message.subject,
    state: stateOf(message.status, message.attempts),
    attempts: message.attempts,
    lastError: message.lastError,
    createdAt: message.createdAt.toISOString(),
    nextAttemptAt: message.status === "PENDING" ? message.nextAttemptAt.toISOString() : null,
    giveUpAt: message.giveUpAt.toISOString(),
    sentAt: message.sentAt?.toISOString() ?? null,
    gaveUpAt: message.gaveUpAt?.toISOString() ?? null,
  };
}

const ROW_FIELDS = {
  id: true,
  idempotencyKey: true,
  kind: true,
  topic: true,
  userId: true,
  to: true,
  subject: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  claimToken: true,
  claimedUntil: true,
  giveUpAt: true,
  lastError: true,
  createdAt: true,
  sentAt: true,
  gaveUpAt: true,
} as const;

/** What is waiting (queued, retrying, being sent) and the latest given up, with counts of every state. */
export async function outboxOverview(limit = 100): Promise<OutboxOverview> {
  const [grouped, retrying, unsent, givenUp] = await Promise.all([
    db.outboxMail.groupBy({ by: ["status"], _count: { _all: true } }),
    db.outboxMail.count({ where: { status: "PENDING", attempts: { gt: 0 } } }),
    db.outboxMail.findMany({ where: { status: { in: ["PENDING", "SENDING"] } }, orderBy: { createdAt: "asc" }, take: limit, select: ROW_FIELDS }),
    db.outboxMail.findMany({ where: { status: "GIVEN_UP" }, orderBy: { gaveUpAt: "desc" }, take: limit, select: ROW_FIELDS }),
  ]);
  const of = (status: OutboxMailStatus) => grouped.find((row) => row.status === status)?._count._all ?? 0;
  return {
    counts: { queued: of("PENDING") - retrying, retrying, sending: of("SENDING"), sent: of("SENT"), given_up: of("GIVEN_UP") },
    unsent: unsent.map(toRow),
    givenUp: givenUp.map(toRow),
  };
}
