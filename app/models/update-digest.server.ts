// The update digest job: one mail per opted-in account and run, listing the new versions of posts
// it owns and the new posts it may download, each announced once (docs/decisions/012).
import { createHash } from "node:crypto";
import { db, type Prisma } from "~/db.server";
import { env } from "~/env.server";
import { escapeHtml, type OutgoingMail } from "~/integrations/mail.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { deliverDueMail, enqueueMail } from "~/models/mail-outbox.server";
import { listUpdatesFor, newPostHeadline, patchItemHeadline, postLink, type UpdateItem } from "~/models/update-notifications.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";
import { renderVersionNotes, versionNotesAsText } from "~/utils/version-notes.server";
import { errorFields, log } from "~/logger.server";

export const DIGEST_JOB = "update-digest";
export const DIGEST_SUBJECT = "New in the Creator Library";
/** A digest looks back at most this far, however long ago the user opted in. */
const LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
/** Items per mail at most (older ones wait for the next digest). */
const ITEMS_PER_MAIL = 50;
const HOUR_MS = 60 * 60 * 1000;

export type DigestRun = {
  skipped: null | "off" | "locked" | "recent";
  /** Accounts with at least one opt-in and a proven address. */
  accounts: number;
  /** Digests put in the mail outbox; `mailed` of them were sent at once, `failed` wait for a retry. */
  queued: number;
  mailed: number;
  items: number;
  failed: number;
};

type Subscriber = Awaited<ReturnType<typeof subscribers>>[number];

function subscribers() {
  return db.updateSubscription.findMany({
    where: {
      OR: [{ notifyNewVersions: true }, { notifyNewPosts: true }],
      // Only to an address someone proved, and not to restricted accounts (their library unlocks nothing).
      user: { email: { not: null }, emailVerifiedBy: { not: null }, restricted: false },
    },
    include: { user: true },
    orderBy: { userId: "asc" },
  });
}

/** What this subscriber asked for and has not been mailed yet. */
async function pendingItems(subscriber: Subscriber, now: Date): Promise<UpdateItem[]> {
  const floor = now.getTime() - LOOKBACK_MS;
  const sinceOf = (date: Date | null) => (date ? Math.max(date.getTime(), floor) : null);
  const versionsSince = subscriber.notifyNewVersions ? sinceOf(subscriber.newVersionsSince) : null;
  const postsSince = subscriber.notifyNewPosts ? sinceOf(subscriber.newPostsSince) : null;
  const earliest = Math.min(versionsSince ?? Infinity, postsSince ?? Infinity);
  if (earliest === Infinity) return [];
  const items = (await listUpdatesFor(subscriber.user, { since: new Date(earliest), limit: 500 })).filter((item) => {
    if (item.at.getTime() > now.getTime()) return false;
    // "A new version of something I own": a post the user may download and downloaded before.
    // A version of something the user owns confirmed on a game patch goes with the version news.
    if (item.kind === "NEW_VERSION" || item.kind === "PATCH_WORKS") return versionsSince !== null && item.owned && item.at.getTime() > versionsSince;
    return postsSince !== null && item.at.getTime() > postsSince;
  });
  if (items.length === 0) return [];
  const mailed = await db.updateMailed.findMany({
    where: { userId: subscriber.userId, subjectId: { in: items.map((item) => item.subjectId) } },
    select: { kind: true, subjectId: true },
  });
  const done = new Set(mailed.map((row) => `${row.kind}:${row.subjectId}`));
  return items.filter((item) => !done.has(`${item.kind}:${item.subjectId}`)).slice(0, ITEMS_PER_MAIL);
}

export function digestMail(to: string, name: string | null, items: UpdateItem[], unsubscribeToken: string): OutgoingMail {
  const appUrl = env().APP_URL;
  const unsubscribeUrl = `${appUrl}/unsubscribe/${unsubscribeToken}`;
  const posts = items.filter((item) => item.kind === "NEW_POST");
  const patches = items.filter((item) => item.kind === "PATCH_WORKS");
  // A post new to the reader is listed once, under "New posts": its new versions are part of it.
  const newPostIds = new Set(posts.map((item) => item.postId));
  const versions = items.filter((item) => item.kind === "NEW_VERSION" && !newPostIds.has(item.postId));
  const text: string[] = [`Hello${name ? ` ${name}` : ""},`, ""];
  const html: string[] = [`<p>Hello${name ? ` ${escapeHtml(name)}` : ""},</p>`];
  const section = (heading: string, list: UpdateItem[], line: (item: UpdateItem) => string) => {
    if (list.length === 0) return;
    text.push(heading, "");
    html.push(`<h2 style="font-size:18px">${escapeHtml(heading)}</h2><ul>`);
    for (const item of list) {
      const link = postLink(item.title);
      text.push(`- ${line(item)}`, `  ${link}`);
      // The notes are the admin's Markdown: read as text in the text part, rendered in the HTML part.
      if (item.notes.trim())
        text.push(
          ...versionNotesAsText(item.notes)
            .split("\n")
            .slice(0, 12)
            .map((note) => `    ${note}`),
        );
      html.push(`<li><a href="${escapeHtml(link)}">${escapeHtml(line(item))}</a>${renderVersionNotes(item.notes)}</li>`);
    }
    text.push("");
    html.push("</ul>");
  };
  section("New versions of posts you own", versions, (item) => `${item.title} ${item.label}`);
  section("New posts for you", posts, (item) => newPostHeadline(item, ""));
  section("Game patch news for posts you own", patches, patchItemHeadline);
  const why = `You get this mail because you asked for update mails in your account (${appUrl}/account/notifications).`;
  text.push(why, `Unsubscribe with one click: ${unsubscribeUrl}`, "");
  html.push(`<p style="color:#555">${escapeHtml(why)} <a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>`);
  return {
    to,
    subject: DIGEST_SUBJECT,
    text: text.join("\n"),
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111;background:#fff;padding:24px">\n${html.join("\n")}\n</body></html>`,
    headers: { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

/** A short, stable name for a set of announced items (part of a mail's idempotency key). */
export function itemsKey(items: { kind: string; subjectId: string }[]): string {
  const names = items.map((item) => `${item.kind}:${item.subjectId}`).sort();
  return createHash("sha256").update(names.join(",")).digest("hex").slice(0, 32);
}

/**
 * Queues one digest for the subscriber, if anything is pending, in the run's transaction: first
 * the ledger rows are inserted (ON CONFLICT DO NOTHING, so a concurrent run or a release mail
 * gets only the rows nobody claimed yet), then the mail listing exactly the rows this call
 * claimed goes into the outbox. The ledger, the mail and the subscriber's last digest time are
 * committed together; the outbox then sends the mail, and retries it while the mail server is down.
 */
async function enqueueDigest(tx: Prisma.TransactionClient, subscriber: Subscriber, now: Date): Promise<{ id: string; items: number } | null> {
  const pending = await pendingItems(subscriber, now);
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
    key: `digest:${subscriber.userId}:${itemsKey(items)}`,
    kind: "digest",
    userId: subscriber.userId,
    mail: digestMail(subscriber.user.email!, subscriber.user.fullName, items, subscriber.unsubscribeToken),
    now,
  });
  await tx.updateSubscription.update({ where: { userId: subscriber.userId }, data: { lastDigestAt: now } });
  return id ? { id, items: items.length } : null;
}

/**
 * One digest run for the whole cluster: every app server's timer calls it, a transaction
 * advisory lock lets one run at a time, and a finished run recorded in job_runs less than
 * UPDATE_DIGEST_HOURS ago makes the others skip. `ignorePeriod` runs regardless of the last run
 * (a retry; the ledger still keeps anyone from getting an item twice).
 */
export async function runUpdateDigests({ now = new Date(), ignorePeriod = false }: { now?: Date; ignorePeriod?: boolean } = {}): Promise<DigestRun> {
  const result: DigestRun = { skipped: null, accounts: 0, queued: 0, mailed: 0, items: 0, failed: 0 };
  const hours = env().UPDATE_DIGEST_HOURS;
  if (hours <= 0 && !ignorePeriod) return { ...result, skipped: "off" };
  const queued: string[] = [];
  const run = await db.$transaction(
    async (tx): Promise<DigestRun> => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('update-digest')) AS locked`;
      if (!lock?.locked) return { ...result, skipped: "locked" };
      if (!ignorePeriod) {
        const last = await tx.jobRun.findFirst({ where: { job: DIGEST_JOB, status: "done" }, orderBy: { startedAt: "desc" } });
        // A few minutes' slack: the hourly timers of the servers drift against each other.
        if (last && now.getTime() - last.startedAt.getTime() < hours * HOUR_MS - 5 * 60_000) return { ...result, skipped: "recent" };
      }
      for (const subscriber of await subscribers()) {
        result.accounts += 1;
        const digest = await enqueueDigest(tx, subscriber, now);
        if (!digest) continue;
        queued.push(digest.id);
        result.items += digest.items;
      }
      result.queued = queued.length;
      await tx.jobRun.create({
        data: { job: DIGEST_JOB, trigger: ignorePeriod ? "manual" : "timer", status: "done", summary: result, startedAt: now, finishedAt: new Date() },
      });
      return result;
    },
    { timeout: 30 * 60_000, maxWait: 10_000 },
  );
  if (queued.length === 0) return run;
  // Sent at once; what fails stays queued for the sender job.
  const delivered = await deliverDueMail({ ids: queued, now }).catch((error: unknown) => {
    log().warn(errorFields(error), "update digests: sending at once failed, the outbox retries");
    return { sent: 0 };
  });
  return { ...run, mailed: delivered.sent, failed: queued.length - delivered.sent };
}

/**
 * An admin's "Send update digests now": one run at once, whatever the last run's time (the
 * ledger still mails each item to each account once), recorded in the audit log. Refused when
 * the site has update mails switched off, or while another run holds the lock.
 */
export async function sendUpdateDigestsNow(actorId: string, now = new Date()): Promise<DigestRun> {
  if (env().UPDATE_DIGEST_HOURS <= 0) throw new DomainError(409, ADMIN_MESSAGES.digestsOff);
  const run = await runUpdateDigests({ now, ignorePeriod: true });
  if (run.skipped === "locked") throw new DomainError(409, ADMIN_MESSAGES.digestsBusy);
  await recordAudit({ actorId, action: "digests.send", targetType: "job", targetId: DIGEST_JOB, after: run });
  return run;
}
