// Release mails (docs/product.md#releases): a mail at once, for those who asked for it, when a
// release step (or a scheduled publication) opens a post to them. Every app server runs it each
// minute; a transaction advisory lock lets one run at a time, and the digests' ledger
// (update_mail_ledger) tells each person of each post once, by this mail or by a digest.
import { db } from "~/db.server";
import { sendMail } from "~/integrations/mail.server";
import { digestMail, NOT_SENT_CODES } from "~/models/update-digest.server";
import { listUpdatesFor, type UpdateItem } from "~/models/update-notifications.server";

export const RELEASE_MAIL_JOB = "release-mail";
export const RELEASE_MAIL_SUBJECT = "Now available in the Creator Library";
/** The first run looks back this far; later runs start at the instant of the last recorded run. */
const FIRST_LOOKBACK_MS = 60 * 60 * 1000;

export type ReleaseMailRun = { skipped: null | "locked" | "nothing"; mailed: number; items: number; failed: number };

/** Posts that opened to someone in (from, to]: a release step's instant, or a scheduled publication. */
async function postsOpenedBetween(from: Date, to: Date): Promise<Set<string>> {
  const [steps, published] = await Promise.all([
    db.releaseStep.findMany({ where: { opensAt: { gt: from, lte: to } }, select: { postId: true } }),
    db.post.findMany({ where: { publishAt: { gt: from, lte: to } }, select: { id: true } }),
  ]);
  return new Set([...steps.map((step) => step.postId), ...published.map((post) => post.id)]);
}

export async function runReleaseMails(now = new Date()): Promise<ReleaseMailRun> {
  const result: ReleaseMailRun = { skipped: null, mailed: 0, items: 0, failed: 0 };
  return db.$transaction(
    async (tx) => {
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
        const outcome = await mailOnce(subscriber, pending, now);
        if (outcome === "sent") result.mailed += 1;
        if (outcome === "failed") result.failed += 1;
        if (outcome === "sent") result.items += pending.length;
      }
      await tx.jobRun.create({ data: { job: RELEASE_MAIL_JOB, trigger: "timer", status: "done", summary: result, startedAt: now, finishedAt: new Date() } });
      return result;
    },
    { timeout: 10 * 60_000, maxWait: 10_000 },
  );
}

type Subscriber = { userId: string; unsubscribeToken: string; user: { email: string | null; fullName: string | null } };

/** Claims the items in the ledger first (as the digest does), then mails exactly what it claimed. */
async function mailOnce(subscriber: Subscriber, pending: UpdateItem[], now: Date): Promise<"sent" | "none" | "failed"> {
  if (pending.length === 0) return "none";
  const claimed = await db.updateMailed.createManyAndReturn({
    data: pending.map((item) => ({ userId: subscriber.userId, kind: item.kind, subjectId: item.subjectId, mailedAt: now })),
    skipDuplicates: true,
    select: { kind: true, subjectId: true },
  });
  const mine = new Set(claimed.map((row) => `${row.kind}:${row.subjectId}`));
  const items = pending.filter((item) => mine.has(`${item.kind}:${item.subjectId}`));
  if (items.length === 0) return "none";
  try {
    await sendMail({ ...digestMail(subscriber.user.email!, subscriber.user.fullName, items, subscriber.unsubscribeToken), subject: RELEASE_MAIL_SUBJECT });
    return "sent";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) {
      await db.updateMailed.deleteMany({
        where: { userId: subscriber.userId, mailedAt: now, OR: items.map((item) => ({ kind: item.kind, subjectId: item.subjectId })) },
      });
    }
    console.error(`release mail to user ${subscriber.userId} failed`, error);
    return "failed";
  }
}
