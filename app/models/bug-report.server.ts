// Bug reports from downloaders (docs/product.md#bug-reports). Only an account with a completed
// download of a post (a `downloads` row: written once the whole file was sent) may report a bug
// on it or add "me too"; verified and not restricted, like every other action. Admins move a
// report new -> confirmed -> fixed in a version, or won't fix. When a report is first marked fixed,
// the reporter and every "me too" account are told once: the fix is in their update feed (computed
// from the report), and a mail for those who chose version mails is written to the mail outbox in
// the same transaction as the change, under a key per report and person, so a repeated "fixed"
// or a retry never mails twice. The post page lists known issues (titles and states, never who
// reported them) for whoever may see the post (the post-visibility rule).
import { db, type Prisma } from "~/db.server";
import { env } from "~/env.server";
import type { BugReportState, User } from "~/generated/prisma/client";
import { escapeHtml, type OutgoingMail } from "~/integrations/mail.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import { enqueueMail, sendQueuedNow } from "~/models/mail-outbox.server";
import { isPostVisible, visiblePostsWhere } from "~/models/post-visibility.server";
import { consumeRateLimit, formatWait } from "~/models/rate-limit.server";
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";
import {
  BUG_REPORT_LIMIT,
  BUG_REPORT_MESSAGES,
  BUG_REPORT_WINDOW_MS,
  bugFilterSchema,
  bugReportSchema,
  bugStateSchema,
  bugStateWords,
  OPEN_BUG_STATES,
  type BugFilter,
  type BugState,
} from "~/utils/bug-report-schemas";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { renderVersionNotes, versionNotesAsText } from "~/utils/version-notes.server";
import { parseInput } from "~/utils/input-words";

export { BUG_REPORT_MESSAGES };

type Viewer = Pick<User, "id" | "isAdmin" | "restricted" | "mailVerified"> | null;
type Reporter = Pick<User, "id" | "isAdmin" | "restricted" | "mailVerified">;

/** The first validation message, as a 400. */
function invalid(error: { issues: { message: string; path: (string | number)[] }[] }): DomainError {
  const issue = error.issues[0];
  const field = issue?.path[0];
  return new DomainError(400, issue?.message ?? "Invalid input.", typeof field === "string" ? { fields: { [field]: issue!.message } } : {});
}

/** The post if this viewer may see it now (the post-visibility rule), else the library's 404. */
async function visiblePost(viewer: Viewer, postId: string, now = new Date()) {
  const post = await db.post.findUnique({ where: { id: postId }, select: { id: true, title: true, enabled: true, publishAt: true } });
  if (!post || !isPostVisible(post, viewer, now)) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  return post;
}

/** The account's last completed download of the post (the version the form fills in), if any. */
async function lastDownload(userId: string, postId: string) {
  return db.download.findFirst({
    where: { userId, postId },
    orderBy: { createdAt: "desc" },
    select: { versionId: true, version: true, createdAt: true },
  });
}

/** Verified and not restricted: what every report and "me too" needs before anything else. */
function requireStanding(user: Reporter): void {
  if (isRestricted(user)) throw new DomainError(403, RESTRICTED_MESSAGE);
  if (!user.mailVerified) throw new DomainError(403, BUG_REPORT_MESSAGES.unverified);
}

/** The one rule of who may report on (or add "me too" to) a post: a downloader in good standing. */
async function requireDownloader(user: Reporter, postId: string) {
  requireStanding(user);
  await visiblePost(user, postId);
  const download = await lastDownload(user.id, postId);
  if (!download) throw new DomainError(403, BUG_REPORT_MESSAGES.notDownloaded);
  return download;
}

// ---------------------------------------------------------------- what the post page shows

/** A known issue as everyone sees it: never who reported it. */
export type KnownIssue = {
  id: string;
  title: string;
  state: BugState;
  /** "New", "Confirmed", "Fixed in V1.2", "Won't fix". */
  stateWords: string;
  fixedIn: { versionId: string; label: string } | null;
  meToos: number;
  reportedAt: string;
  /** The viewer's own relation to it (false for guests): their report, their "me too". */
  mine: boolean;
  meToo: boolean;
};

/** What the viewer may do on the post page: report (with the version filled in) or why not. */
export type ReportForm =
  { canReport: true; version: string; versionId: string | null } | { canReport: false; reason: "guest" | "unverified" | "restricted" | "not-downloaded" };

/** The known issues of a post the viewer may see, open ones first, then newest first; 404 otherwise. */
export async function listKnownIssues(viewer: Viewer, postId: string): Promise<KnownIssue[]> {
  await visiblePost(viewer, postId);
  const reports = await db.bugReport.findMany({
    where: { postId },
    select: {
      id: true,
      title: true,
      state: true,
      userId: true,
      createdAt: true,
      fixedVersion: { select: { id: true, label: true, hidden: true } },
      _count: { select: { meToos: true } },
      meToos: viewer ? { where: { userId: viewer.id }, select: { userId: true } } : false,
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
  const rank = (state: BugState) => (OPEN_BUG_STATES.includes(state) ? 0 : 1);
  return reports
    .map((report) => {
      // A hidden version is not named (nor linked) to those who cannot see it.
      const fixed = report.fixedVersion && (!report.fixedVersion.hidden || isEffectiveAdmin(viewer)) ? report.fixedVersion : null;
      return {
        id: report.id,
        title: report.title,
        state: report.state,
        stateWords: bugStateWords(report.state, fixed?.label ?? null),
        fixedIn: report.state === "FIXED" && fixed ? { versionId: fixed.id, label: fixed.label } : null,
        meToos: report._count.meToos,
        reportedAt: report.createdAt.toISOString(),
        mine: viewer !== null && report.userId === viewer.id,
        meToo: viewer !== null && (report.meToos?.length ?? 0) > 0,
      };
    })
    .sort((a, b) => rank(a.state) - rank(b.state));
}

/** Whether the viewer may report on this post (seen by them), and the version the form fills in. */
export async function reportFormFor(viewer: Viewer, postId: string): Promise<ReportForm> {
  if (!viewer) return { canReport: false, reason: "guest" };
  if (isRestricted(viewer)) return { canReport: false, reason: "restricted" };
  if (!viewer.mailVerified) return { canReport: false, reason: "unverified" };
  const download = await lastDownload(viewer.id, postId);
  if (!download) return { canReport: false, reason: "not-downloaded" };
  return { canReport: true, version: download.version, versionId: download.versionId };
}

// ---------------------------------------------------------------- reporting and "me too"

/**
 * Files a report on a post the account downloaded: the version it last downloaded is recorded
 * with it, and the game patch as sent. At most BUG_REPORT_LIMIT per hour per account (429).
 */
export async function fileBugReport(user: Reporter, postId: string, input: unknown): Promise<KnownIssue> {
  const download = await requireDownloader(user, postId);
  const parsed = parseInput(bugReportSchema, input);
  if (!parsed.success) throw invalid(parsed.error);
  const limit = await consumeRateLimit(`bug-report:user:${user.id}`, BUG_REPORT_LIMIT, BUG_REPORT_WINDOW_MS);
  if (!limit.allowed) {
    throw new DomainError(429, BUG_REPORT_MESSAGES.tooMany(formatWait(limit.retryAfterSeconds)), {
      retryAfterSeconds: limit.retryAfterSeconds,
      code: "rate_limited",
    });
  }
  const report = await db.bugReport.create({
    data: {
      postId,
      userId: user.id,
      versionId: download.versionId,
      versionLabel: download.version,
      gamePatch: parsed.data.gamePatch,
      title: parsed.data.title,
      body: parsed.data.body,
    },
  });
  return {
    id: report.id,
    title: report.title,
    state: report.state,
    stateWords: bugStateWords(report.state, null),
    fixedIn: null,
    meToos: 0,
    reportedAt: report.createdAt.toISOString(),
    mine: true,
    meToo: false,
  };
}

/** The report (on a post the user may see), or 404. */
async function reportFor(user: Reporter, reportId: string) {
  const report = await db.bugReport.findUnique({ where: { id: reportId }, select: { id: true, postId: true, userId: true, state: true } });
  if (!report) throw new DomainError(404, BUG_REPORT_MESSAGES.reportNotFound);
  try {
    await visiblePost(user, report.postId);
  } catch {
    throw new DomainError(404, BUG_REPORT_MESSAGES.reportNotFound);
  }
  return report;
}

/** "Me too" from another downloader of the post, on an open report; once each (adding again changes nothing). */
export async function addMeToo(user: Reporter, reportId: string): Promise<{ meToos: number }> {
  requireStanding(user);
  const report = await reportFor(user, reportId);
  await requireDownloader(user, report.postId);
  if (report.userId === user.id) throw new DomainError(409, BUG_REPORT_MESSAGES.ownReport);
  if (!OPEN_BUG_STATES.includes(report.state)) throw new DomainError(409, BUG_REPORT_MESSAGES.closed);
  await db.bugReportMeToo.createMany({ data: [{ reportId, userId: user.id }], skipDuplicates: true });
  return { meToos: await db.bugReportMeToo.count({ where: { reportId } }) };
}

/** Takes the account's "me too" back (nothing happens when there was none). */
export async function removeMeToo(user: Reporter, reportId: string): Promise<{ meToos: number }> {
  requireStanding(user);
  await reportFor(user, reportId);
  await db.bugReportMeToo.deleteMany({ where: { reportId, userId: user.id } });
  return { meToos: await db.bugReportMeToo.count({ where: { reportId } }) };
}

// ---------------------------------------------------------------- admins: triage

export type TriageReport = {
  id: string;
  postId: string;
  postTitle: string;
  title: string;
  body: string;
  state: BugState;
  stateWords: string;
  version: string;
  gamePatch: string;
  fixedIn: { versionId: string; label: string } | null;
  meToos: number;
  reporter: { id: string; name: string; email: string | null };
  reportedAt: string;
  fixedAt: string | null;
};

function requireAdminUser(user: Pick<User, "isAdmin" | "restricted"> | null): void {
  // The same test as every admin guard: admin mode on and not restricted.
  if (!isEffectiveAdmin(user)) throw new DomainError(403, "You need to be logged in as an admin to perform this action.");
}

/** The triage list (admins): filtered by state ("OPEN": new and confirmed) and post, newest first. */
export async function listBugReports(admin: Pick<User, "isAdmin" | "restricted">, query: unknown): Promise<{ filter: BugFilter; reports: TriageReport[] }> {
  requireAdminUser(admin);
  const filter = bugFilterSchema.parse(query ?? {});
  const where: Prisma.BugReportWhereInput = {
    ...(filter.post ? { postId: filter.post } : {}),
    ...(filter.state === "ALL" ? {} : filter.state === "OPEN" ? { state: { in: [...OPEN_BUG_STATES] } } : { state: filter.state }),
  };
  const rows = await db.bugReport.findMany({
    where,
    include: {
      post: { select: { title: true } },
      user: { select: { id: true, fullName: true, email: true } },
      fixedVersion: { select: { id: true, label: true } },
      _count: { select: { meToos: true } },
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: 500,
  });
  return {
    filter,
    reports: rows.map((row) => ({
      id: row.id,
      postId: row.postId,
      postTitle: row.post.title,
      title: row.title,
      body: row.body,
      state: row.state,
      stateWords: bugStateWords(row.state, row.fixedVersion?.label ?? null),
      version: row.versionLabel,
      gamePatch: row.gamePatch,
      fixedIn: row.fixedVersion ? { versionId: row.fixedVersion.id, label: row.fixedVersion.label } : null,
      meToos: row._count.meToos,
      reporter: { id: row.user.id, name: row.user.fullName ?? "(no name)", email: row.user.email },
      reportedAt: row.createdAt.toISOString(),
      fixedAt: row.fixedAt?.toISOString() ?? null,
    })),
  };
}

/** Posts that have reports, for the triage filter. */
export async function postsWithReports(admin: Pick<User, "isAdmin" | "restricted">): Promise<{ postId: string; title: string }[]> {
  requireAdminUser(admin);
  const posts = await db.post.findMany({ where: { bugReports: { some: {} } }, select: { id: true, title: true }, orderBy: { title: "asc" } });
  return posts.map((post) => ({ postId: post.id, title: post.title }));
}

/** The versions a report may be fixed in: those of its post, newest first (the triage form's choices). */
export async function fixVersionChoices(
  admin: Pick<User, "isAdmin" | "restricted">,
  postIds: string[],
): Promise<Record<string, { id: string; label: string }[]>> {
  requireAdminUser(admin);
  const versions = await db.postVersion.findMany({
    where: { postId: { in: postIds } },
    select: { id: true, label: true, postId: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const byPost: Record<string, { id: string; label: string }[]> = {};
  for (const version of versions) (byPost[version.postId] ??= []).push({ id: version.id, label: version.label });
  return byPost;
}

/**
 * An admin moves a report to a state; "fixed" names a version of the report's post. The first time
 * a report becomes fixed, its fix notices are written (fixNoticeAt marks it, in the same
 * transaction), so marking it fixed again, or in another version, never tells anyone twice.
 * Answers the report as the triage list shows it and how many notices were queued.
 */
export async function setBugReportState(
  admin: Pick<User, "id" | "isAdmin" | "restricted">,
  reportId: string,
  input: unknown,
  now = new Date(),
): Promise<{ report: TriageReport; noticesQueued: number }> {
  requireAdminUser(admin);
  const parsed = parseInput(bugStateSchema, input);
  if (!parsed.success) throw invalid(parsed.error);
  const { state, fixedVersionId } = parsed.data;
  const queued: string[] = [];
  await db.$transaction(async (tx) => {
    // The row locked: two admins marking it fixed at once queue the notices once.
    const [current] = await tx.$queryRaw<{ id: string; post_id: string; state: BugReportState; fixed_version_id: string | null; fix_notice_at: Date | null }[]>`
      SELECT id, post_id, state, fixed_version_id, fix_notice_at FROM bug_reports WHERE id = ${reportId} FOR UPDATE`;
    if (!current) throw new DomainError(404, BUG_REPORT_MESSAGES.reportNotFound);
    let version: { id: string; label: string; notes: string } | null = null;
    if (state === "FIXED") {
      version = await tx.postVersion.findFirst({ where: { id: fixedVersionId!, postId: current.post_id }, select: { id: true, label: true, notes: true } });
      if (!version) throw new DomainError(400, BUG_REPORT_MESSAGES.unknownVersion);
    }
    const sameFix = state === "FIXED" && current.state === "FIXED" && current.fixed_version_id === version?.id;
    if (current.state === state && (state !== "FIXED" || sameFix)) return;
    const firstFix = state === "FIXED" && current.fix_notice_at === null;
    await tx.bugReport.update({
      where: { id: reportId },
      data: {
        state,
        fixedVersionId: state === "FIXED" ? version!.id : null,
        fixedAt: state === "FIXED" ? (current.state === "FIXED" ? undefined : now) : null,
        ...(firstFix ? { fixNoticeAt: now } : {}),
      },
    });
    await recordAudit(
      {
        actorId: admin.id,
        action: "bug_report.state",
        targetType: "bug_report",
        targetId: reportId,
        before: { state: current.state, fixedVersionId: current.fixed_version_id },
        after: { state, fixedVersionId: version?.id ?? null },
      },
      tx,
    );
    if (firstFix) queued.push(...(await queueFixNotices(tx, reportId, version!, now)));
  });
  // Sent at once; what fails stays queued for the outbox's sender job.
  if (queued.length) await sendQueuedNow(queued);
  const { reports } = await listBugReports(admin, { state: "ALL" });
  const report = reports.find((item) => item.id === reportId);
  if (!report) throw new DomainError(404, BUG_REPORT_MESSAGES.reportNotFound);
  return { report, noticesQueued: queued.length };
}

// ---------------------------------------------------------------- fix notices

/** The outbox key of one person's notice of one fixed report: the same notice is never queued twice. */
export function fixNoticeKey(reportId: string, userId: string): string {
  return `bug-fixed:${reportId}:${userId}`;
}

/** The post page's address of a version's notes. */
export function versionNotesLink(postId: string, versionId: string): string {
  return `${env().APP_URL}/library/${encodeURIComponent(postId)}#version-${versionId}`;
}

/**
 * Writes the fix notices of a report just marked fixed, in the caller's transaction: one mail to
 * the reporter and to each "me too" account that chose version mails (notifyNewVersions, not
 * unsubscribed) and whose email is proven, restricted accounts excepted, and none to an account
 * that may not see the post now (disabled or scheduled since: a mail cannot be taken back, and
 * the feed's "Fixed in" entry tells them once the post is visible). Answers the ids queued.
 */
async function queueFixNotices(
  tx: Prisma.TransactionClient,
  reportId: string,
  version: { id: string; label: string; notes: string },
  now: Date,
): Promise<string[]> {
  const report = await tx.bugReport.findUniqueOrThrow({
    where: { id: reportId },
    select: {
      id: true,
      title: true,
      userId: true,
      post: { select: { id: true, title: true, enabled: true, publishAt: true } },
      meToos: { select: { userId: true } },
    },
  });
  const people = [report.userId, ...report.meToos.map((meToo) => meToo.userId)];
  const subscribers = await tx.updateSubscription.findMany({
    where: {
      userId: { in: people },
      notifyNewVersions: true,
      user: { email: { not: null }, emailVerifiedBy: { not: null }, restricted: false },
    },
    include: { user: { select: { email: true, fullName: true, isAdmin: true, restricted: true } } },
    orderBy: { userId: "asc" },
  });
  const ids: string[] = [];
  for (const subscriber of subscribers) {
    if (!isPostVisible(report.post, subscriber.user, now)) continue;
    const id = await enqueueMail(tx, {
      key: fixNoticeKey(reportId, subscriber.userId),
      kind: "fix",
      userId: subscriber.userId,
      mail: fixNoticeMail(subscriber.user.email!, subscriber.user.fullName, {
        reportTitle: report.title,
        postId: report.post.id,
        postTitle: report.post.title,
        version,
        reporter: subscriber.userId === report.userId,
        unsubscribeToken: subscriber.unsubscribeToken,
      }),
      now,
    });
    if (id) ids.push(id);
  }
  return ids;
}

export const FIX_NOTICE_SUBJECT = "A bug you reported is fixed";

/** The fix notice: which bug, in which post and version, with that version's notes and a link to them. */
export function fixNoticeMail(
  to: string,
  name: string | null,
  notice: {
    reportTitle: string;
    postId: string;
    postTitle: string;
    version: { id: string; label: string; notes: string };
    reporter: boolean;
    unsubscribeToken: string;
  },
): OutgoingMail {
  const appUrl = env().APP_URL;
  const link = versionNotesLink(notice.postId, notice.version.id);
  const unsubscribeUrl = `${appUrl}/unsubscribe/${notice.unsubscribeToken}`;
  const why = notice.reporter ? "You reported this bug." : "You said \u201cme too\u201d to this bug.";
  const line = `\u201c${notice.reportTitle}\u201d in ${notice.postTitle} is fixed in ${notice.version.label}.`;
  const footer = `You get this mail because you asked for mails about new versions in your account (${appUrl}/account/notifications).`;
  const text = [`Hello${name ? ` ${name}` : ""},`, "", line, why, "", `${notice.version.label}: ${link}`];
  if (notice.version.notes.trim())
    text.push(
      ...versionNotesAsText(notice.version.notes)
        .split("\n")
        .slice(0, 20)
        .map((note) => `    ${note}`),
    );
  text.push("", footer, `Unsubscribe with one click: ${unsubscribeUrl}`, "");
  const html = [
    `<p>Hello${name ? ` ${escapeHtml(name)}` : ""},</p>`,
    `<p>${escapeHtml(line)} ${escapeHtml(why)}</p>`,
    `<p><a href="${escapeHtml(link)}">${escapeHtml(`${notice.postTitle} ${notice.version.label}`)}</a></p>`,
    renderVersionNotes(notice.version.notes),
    `<p style="color:#555">${escapeHtml(footer)} <a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>`,
  ];
  return {
    to,
    subject: FIX_NOTICE_SUBJECT,
    text: text.join("\n"),
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111;background:#fff;padding:24px">\n${html.join("\n")}\n</body></html>`,
    headers: { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

/** A fix the account was told about (reporter or "me too"), for its update feed. */
export type FixNotice = { reportId: string; title: string; postId: string; postTitle: string; versionId: string; label: string; notes: string; at: Date };

/**
 * The fixed reports the account reported or said "me too" to, on posts it may see, newest fix
 * first: the feed's "Fixed in …" entries. Only reports whose notices were written (those told).
 */
export async function listFixNoticesFor(user: Pick<User, "id" | "isAdmin" | "restricted">, limit: number): Promise<FixNotice[]> {
  if (isRestricted(user)) return [];
  const rows = await db.bugReport.findMany({
    where: {
      state: "FIXED",
      fixNoticeAt: { not: null },
      fixedVersion: { isNot: null },
      OR: [{ userId: user.id }, { meToos: { some: { userId: user.id } } }],
      post: visiblePostsWhere(user),
    },
    select: {
      id: true,
      title: true,
      fixedAt: true,
      post: { select: { id: true, title: true } },
      fixedVersion: { select: { id: true, label: true, notes: true } },
    },
    orderBy: [{ fixedAt: "desc" }, { id: "asc" }],
    take: limit,
  });
  return rows.map((row) => ({
    reportId: row.id,
    title: row.title,
    postId: row.post.id,
    postTitle: row.post.title,
    versionId: row.fixedVersion!.id,
    label: row.fixedVersion!.label,
    notes: row.fixedVersion!.notes,
    at: row.fixedAt ?? new Date(0),
  }));
}
