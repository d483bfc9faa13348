// The update digest job: one mail per opted-in account and run, listing the new versions of posts
// it owns and the new posts it may download, each announced once (docs/decisions/012).
import { db } from "~/db.server";
import { env } from "~/env.server";
import { escapeHtml, sendMail, type OutgoingMail } from "~/integrations/mail.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { listUpdatesFor, newPostHeadline, postLink, type UpdateItem } from "~/models/update-notifications.server";
import { ADMIN_MESSAGES } from "~/utils/admin-schemas";
import { renderVersionNotes, versionNotesAsText } from "~/utils/version-notes.server";

export const DIGEST_JOB = "update-digest";
export const DIGEST_SUBJECT = "New in the Creator Library";
/** A digest looks back at most this far, however long ago the user opted in. */
const LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
/** Items per mail at most (older ones wait for the next digest). */
const ITEMS_PER_MAIL = 50;
const HOUR_MS = 60 * 60 * 1000;

/**
 * nodemailer's codes for failures where the SMTP server never took the message: the claim is
 * released and the items come again in the next run. Any other failure may have happened after
 * the server accepted the mail, so the claim stays (at most once, never twice).
 */
export const NOT_SENT_CODES = new Set(["ECONNECTION", "EDNS", "EAUTH", "ETLS", "EENVELOPE", "ESOCKET"]);

export type DigestRun = {
  skipped: null | "off" | "locked" | "recent";
  /** Accounts with at least one opt-in and a proven address. */
  accounts: number;
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
    if (item.kind === "NEW_VERSION") return versionsSince !== null && item.owned && item.at.getTime() > versionsSince;
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
  const versions = items.filter((item) => item.kind === "NEW_VERSION");
  const posts = items.filter((item) => item.kind === "NEW_POST");
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

/**
 * Mails one digest to the subscriber, if anything is pending. The order is what makes a retried
 * run harmless: first the ledger rows are inserted and committed (ON CONFLICT DO NOTHING, so a
 * concurrent or repeated run gets only the rows nobody claimed yet), then the mail lists exactly
 * the rows this call claimed. A crash after the claim loses at most this one digest; sending
 * first and recording after would mail it twice when the crash falls between the two.
 */
async function mailDigest(subscriber: Subscriber, now: Date): Promise<{ items: number; sent: boolean; failed: boolean }> {
  const pending = await pendingItems(subscriber, now);
  if (pending.length === 0) return { items: 0, sent: false, failed: false };
  const claimed = await db.updateMailed.createManyAndReturn({
    data: pending.map((item) => ({ userId: subscriber.userId, kind: item.kind, subjectId: item.subjectId, mailedAt: now })),
    skipDuplicates: true,
    select: { kind: true, subjectId: true },
  });
  const mine = new Set(claimed.map((row) => `${row.kind}:${row.subjectId}`));
  const items = pending.filter((item) => mine.has(`${item.kind}:${item.subjectId}`));
  if (items.length === 0) return { items: 0, sent: false, failed: false };
  try {
    await sendMail(digestMail(subscriber.user.email!, subscriber.user.fullName, items, subscriber.unsubscribeToken));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) {
      await db.updateMailed.deleteMany({
        where: { userId: subscriber.userId, mailedAt: now, OR: items.map((item) => ({ kind: item.kind, subjectId: item.subjectId })) },
      });
    }
    console.error(`update digest to user ${subscriber.userId} failed`, error);
    return { items: 0, sent: false, failed: true };
  }
  await db.updateSubscription.update({ where: { userId: subscriber.userId }, data: { lastDigestAt: now } });
  return { items: items.length, sent: true, failed: false };
}

/**
 * One digest run for the whole cluster: every app server's timer calls it, a transaction
 * advisory lock lets one run at a time, and a finished run recorded in job_runs less than
 * UPDATE_DIGEST_HOURS ago makes the others skip. `ignorePeriod` runs regardless of the last run
 * (a retry; the ledger still keeps anyone from getting an item twice).
 */
export async function runUpdateDigests({ now = new Date(), ignorePeriod = false }: { now?: Date; ignorePeriod?: boolean } = {}): Promise<DigestRun> {
  const result: DigestRun = { skipped: null, accounts: 0, mailed: 0, items: 0, failed: 0 };
  const hours = env().UPDATE_DIGEST_HOURS;
  if (hours <= 0 && !ignorePeriod) return { ...result, skipped: "off" };
  return db.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('update-digest')) AS locked`;
      if (!lock?.locked) return { ...result, skipped: "locked" };
      if (!ignorePeriod) {
        const last = await tx.jobRun.findFirst({ where: { job: DIGEST_JOB, status: "done" }, orderBy: { startedAt: "desc" } });
        // A few minutes' slack: the hourly timers of the servers drift against each other.
        if (last && now.getTime() - last.startedAt.getTime() < hours * HOUR_MS - 5 * 60_000) return { ...result, skipped: "recent" };
      }
      for (const subscriber of await subscribers()) {
        result.accounts += 1;
        const outcome = await mailDigest(subscriber, now);
        if (outcome.sent) result.mailed += 1;
        if (outcome.failed) result.failed += 1;
        result.items += outcome.items;
      }
      await tx.jobRun.create({
        data: { job: DIGEST_JOB, trigger: ignorePeriod ? "manual" : "timer", status: "done", summary: result, startedAt: now, finishedAt: new Date() },
      });
      return result;
    },
    { timeout: 30 * 60_000, maxWait: 10_000 },
  );
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
