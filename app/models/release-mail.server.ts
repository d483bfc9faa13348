// Release mails (docs/product.md#releases): a mail at once, for those who asked for it, when a
// release step (or a scheduled publication) opens a post to them. Every app server runs it each
// minute; a transaction advisory lock lets one run at a time, and the digests' ledger
// (update_mail_ledger) tells each person of each post once, by this mail or by a digest. The run
// puts each notice in the mail outbox in the same transaction as its ledger rows and the run's
// record, then sends them: a mail server that is down only delays them (the outbox retries).
import { db, type Prisma } from "~/db.server";
import { deliverDueMail, enqueueMail } from "~/models/mail-outbox.server";
import { digestMail, itemsKey } from "~/models/update-digest.server";
import { listUpdatesFor, type UpdateItem } from "~/models/update-notifications.server";
import { errorFields, log } from "~/logger.server";

export const RELEASE_MAIL_JOB = "release-mail";
export const RELEASE_MAIL_SUBJECT = "Now available in the Creator Library";
/** The first run looks back this far; later runs start at the instant of the last recorded run. */
const FIRST_LOOKBACK_MS = 60 * 60 * 1000;

/**
 * `queued`: notices put in the outbox; `mailed`: of those, sent at once; `failed`: not sent at
 * once (the outbox retries them).
 */
export type ReleaseMailRun = { skipped: null | "locked" | "nothing"; queued: number; mailed: number; items: number; failed: number };

/** Posts that opened to someone in (from, to]: a release step's instant, or a scheduled publication. */
async function postsOpenedBetween(from: Date, to: Date): Promise<Set<string>> {
  const [steps, published] = await Promise.all([
    db.releaseStep.findMany({ where: { opensAt: { gt: from, lte: to } }, select: { postId: true } }),
    db.post.findMany({ where: { publishAt: { gt: from, lte: to } }, select: { id: true } }),
  ]);
  return new Set([...steps.map((step) => step.postId), ...published.map((post) => post.id)]);
}

export async function runReleaseMails(now = new Date()): Promise<ReleaseMailRun> {
  const result: ReleaseMailRun = { skipped: null, queued: 0, mailed: 0, items: 0, failed: 0 };
  const queued: string[] = [];
  const run = await db.$transaction(
    async (tx): Promise<ReleaseMailRun> => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('release-mail')) AS locked`;
      if (!lock?.locked) return { ...result, skipped: "locked" };
      const last = await tx.jobRun.findFirst({ where: { job: RELEASE_MAIL_JOB, status: "done" }, orderBy: { startedAt: "desc" }, select: { startedAt: true } });
      const from = last?.startedAt ?? new Date(now.getTime() - FIRST_LOOKBACK_MS);
      const opened = await postsOpenedBetween(from, now);
      // Nothing opened: no run is recorded, so the next one looks back from the same instant.
      if (opened.size === 0) return { ...result, skipped: "nothing" };
      const subscribers = await db.updateSubscription.findMany({
        where: { notifyReleases: true, user: { email: { not: null }, emailVerifiedBy: { not: null }, restricted: false } },
        include: { user: true },
        orderBy: { userId: "asc" },
      });
      for (const subscriber of subscribers) {
        const since = new Date(Math.max(from.getTime(), subscriber.releasesSince?.getTime() ?? now.getTime()));
        const pending = (await listUpdatesFor(subscriber.user, { since, limit: 500 })).filter(
          (item) => item.kind === "NEW_POST" && opened.has(item.postId) && item.at.getTime() <= now.getTime(),
        );
        const notice = await enqueueNotice(tx, subscriber, pending, now);
        if (notice) {
          queued.push(notice.id);
          result.items += notice.items;
        }
      }
      result.queued = queued.length;
      await tx.jobRun.create({ data: { job: RELEASE_MAIL_JOB, trigger: "timer", status: "done", summary: result, startedAt: now, finishedAt: new Date() } });
      return result;
    },
    { timeout: 10 * 60_000, maxWait: 10_000 },
  );
  if (queued.length === 0) return run;
  // Sent at once; what fails stays queued for the sender job.
  const delivered = await deliverDueMail({ ids: queued, now }).catch((error: unknown) => {
    log().warn(errorFields(error), "release mails: sending at once failed, the outbox retries");
    return { sent: 0 };
  });
  return { ...run, mailed: delivered.sent, failed: queued.length - delivered.sent };
}

type Subscriber = { userId: string; unsubscribeToken: string; user: { email: string | null; fullName: string | null } };

/**
 * Claims the items in the ledger (as the digest does) and queues one notice listing exactly what
 * it claimed, in the run's transaction. Its key names the person and the items, so the same
 * notice is never queued twice.
 */
async function enqueueNotice(
  tx: Prisma.TransactionClient,
  subscriber: Subscriber,
  pending: UpdateItem[],
  now: Date,
): Promise<{ id: string; items: number } | null> {
  if (pending.length === 0) return null;
  const claimed = await tx.updateMailed.createManyAndReturn({
    data: pending.map((item) => ({ userId: subscriber.userId, kind: item.kind, subjectId: item.subjectId, mailedAt: now })),
    skipDuplicates: true,
    select: { kind: true, subjectId: true },
  });
  const mine = new Set(claimed.map((row) => `${row.kind}:${row.subjectId}`));
  const items = pending.filter((item) => mine.has(`${item.kind}:${item.subjectId}`));
  if (items.length === 0) return null;
  const id = await enqueueMail(tx, {
    key: `release:${subscriber.userId}:${itemsKey(items)}`,
    kind: "release",
    userId: subscriber.userId,
    mail: { ...digestMail(subscriber.user.email!, subscriber.user.fullName, items, subscriber.unsubscribeToken), subject: RELEASE_MAIL_SUBJECT },
    now,
  });
  return id ? { id, items: items.length } : null;
}
