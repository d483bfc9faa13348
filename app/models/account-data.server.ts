// "Download my data": everything stored about one account, as JSON, without secrets (password
// hash, token hashes, session ids, code hashes). Every table that references the user has a
// section here; tests/account-privacy.test.ts checks that against the database's foreign keys.
import { db } from "~/db.server";
import { DomainError } from "~/models/errors";
import { isPostVisible } from "~/models/post-visibility.server";

/** The export's section for each table with a foreign key to users (what the test checks). */
export const EXPORT_SECTION_OF_TABLE = {
  sessions: "sessions",
  api_tokens: "apiTokens",
  shop_emails: "shopEmails",
  unlocked_content: "unlockedContent",
  downloads: "downloads",
  pledge_events: "pledgeHistory",
  inspiration_likes: "likes",
  inspiration_voters: "ideasYouVotedFor",
  audit_log: "actionsYouTook",
  update_subscriptions: "updateSettings",
  update_mail_ledger: "updatesMailed",
  mail_outbox: "mailsToYou",
  patch_confirmations: "gamePatchAnswers",
  bug_reports: "bugReports",
  bug_report_me_toos: "bugsYouAlsoHave",
  upload_sessions: "uploadsInProgress",
} as const;

/**
 * The emails a person proved are theirs: the account's (when verified) and verified shop emails.
 * What their data export and their deletion cover; not the access rule, which counts only
 * purchases under verified shop emails (prisma/functions/verified_purchases.sql).
 */
export async function provenEmailsOf(userId: string): Promise<string[]> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { email: true, emailVerifiedBy: true, shopEmails: { select: { verifiedEmail: true } } },
  });
  if (!user) return [];
  const emails = user.shopEmails.map((row) => row.verifiedEmail).filter((email): email is string => email !== null);
  if (user.email && user.emailVerifiedBy) emails.push(user.email);
  return [...new Set(emails.map((email) => email.toLowerCase()))];
}

/** What a post's mention in the export needs: its title, and whether the account may see it now. */
const POST_SEEN = { title: true, enabled: true, publishAt: true } as const;

export async function exportAccountData(userId: string, now = new Date()) {
  const user = await db.user.findUnique({
    where: { id: userId },
    include: {
      sessions: { select: { createdAt: true, expiresAt: true }, orderBy: { createdAt: "asc" } },
      apiTokens: { select: { label: true, createdAt: true, lastUsedAt: true, expiresAt: true }, orderBy: { createdAt: "asc" } },
      shopEmails: { select: { email: true, verifiedEmail: true, verifiedAt: true, createdAt: true }, orderBy: { createdAt: "asc" } },
      unlockedContent: { select: { postId: true, source: true, createdAt: true, post: { select: POST_SEEN } }, orderBy: { createdAt: "asc" } },
      downloads: { select: { postId: true, version: true, createdAt: true, post: { select: POST_SEEN } }, orderBy: { createdAt: "asc" } },
      pledgeEvents: { orderBy: { date: "asc" } },
      inspirationLikes: { select: { panelId: true, kind: true, createdAt: true }, orderBy: { createdAt: "asc" } },
      inspirationVotes: { select: { panelId: true, panel: { select: { title: true, postId: true, shippedAt: true, post: { select: POST_SEEN } } } } },
      auditEntries: { select: { action: true, targetType: true, targetId: true, createdAt: true }, orderBy: { createdAt: "asc" } },
      updateSubscription: true,
      updatesMailed: { select: { kind: true, subjectId: true, mailedAt: true }, orderBy: { mailedAt: "asc" } },
      patchConfirmations: {
        select: {
          verdict: true,
          createdAt: true,
          updatedAt: true,
          patch: { select: { name: true } },
          version: { select: { label: true, postId: true, post: { select: POST_SEEN } } },
        },
        orderBy: { createdAt: "asc" },
      },
      bugReports: {
        select: {
          id: true,
          postId: true,
          versionLabel: true,
          gamePatch: true,
          title: true,
          body: true,
          state: true,
          createdAt: true,
          fixedAt: true,
          post: { select: POST_SEEN },
          fixedVersion: { select: { label: true } },
        },
        orderBy: { createdAt: "asc" },
      },
      // Resumable uploads an admin started and has not completed or cancelled.
      uploadSessions: {
        select: { id: true, postId: true, fileName: true, size: true, createdAt: true, lastActivity: true, post: { select: POST_SEEN } },
        orderBy: { createdAt: "asc" },
      },
      bugReportMeToos: {
        select: { reportId: true, createdAt: true, report: { select: { title: true, postId: true, post: { select: POST_SEEN } } } },
        orderBy: { createdAt: "asc" },
      },
      // The mails to the account, without their bodies (a queued code mail holds a live code).
      outboxMails: {
        select: { kind: true, to: true, subject: true, status: true, attempts: true, createdAt: true, sentAt: true, gaveUpAt: true },
        orderBy: { createdAt: "asc" },
      },
    },
  });
  if (!user) throw new DomainError(404, "Account not found.");
  // A record of a post the account may not see now (scheduled, disabled) keeps its id, not its title.
  const titleSeen = (post: { title: string; enabled: boolean; publishAt: Date | null }) => (isPostVisible(post, user, now) ? post.title : null);
  // Purchases are keyed by buyer email, not by account: only the emails this person proved are
  // theirs, or linking someone else's address (unverified) would reveal what they bought.
  const purchases = await db.purchase.findMany({
    where: { email: { in: await provenEmailsOf(user.id) } },
    select: { email: true, kofiItemCode: true, transactionId: true, source: true, purchasedAt: true },
    orderBy: { purchasedAt: "asc" },
  });
  const changesToYourAccount = await db.auditEntry.findMany({
    where: { targetType: "user", targetId: userId },
    select: { action: true, createdAt: true, before: true, after: true },
    orderBy: { createdAt: "asc" },
  });
  return {
    exportedAt: now.toISOString(),
    account: {
      id: user.id,
      leakTraceNumber: user.number,
      email: user.email,
      fullName: user.fullName,
      emailVerifiedBy: user.emailVerifiedBy,
      signUpMethod: user.signUpMethod,
      hasPassword: user.passwordHash !== null,
      currentTierId: user.currentTierId,
      kofiCurrentTier: user.kofiCurrentTier,
      isAdmin: user.isAdmin,
      canBeAdmin: user.canBeAdmin,
      mailVerified: user.mailVerified,
      tosAccepted: user.tosAccepted,
      restricted: user.restricted,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    },
    providers: { patreonId: user.patreonId, googleId: user.googleId, discordId: user.discordId, discordTag: user.discordTag },
    shopEmails: user.shopEmails.map((row) => ({ email: row.email, verified: row.verifiedEmail !== null, verifiedAt: row.verifiedAt, linkedAt: row.createdAt })),
    purchases,
    pledgeHistory: user.pledgeEvents.map(({ userId: _owner, ...event }) => event),
    unlockedContent: user.unlockedContent.map((row) => ({ postId: row.postId, postTitle: titleSeen(row.post), source: row.source, grantedAt: row.createdAt })),
    downloads: user.downloads.map((row) => ({
      postId: row.postId,
      postTitle: titleSeen(row.post),
      version: row.version,
      date: row.createdAt,
      leakTraceNumber: user.number,
    })),
    likes: user.inspirationLikes,
    // Ideas that shipped as a post, credited to this account's vote.
    ideasYouVotedFor: user.inspirationVotes.map((vote) => {
      // Shipped as a post the account may see now; a scheduled or disabled one is not told.
      const seen = vote.panel.post !== null && isPostVisible(vote.panel.post, user, now);
      return { panelId: vote.panelId, title: vote.panel.title, postId: seen ? vote.panel.postId : null, shippedAt: seen ? vote.panel.shippedAt : null };
    }),
    // Players' answers on game patches (docs/product.md#game-patches).
    gamePatchAnswers: user.patchConfirmations.map((row) => ({
      postId: row.version.postId,
      postTitle: titleSeen(row.version.post),
      version: row.version.label,
      patch: row.patch.name,
      verdict: row.verdict.toLowerCase(),
      answeredAt: row.createdAt,
      changedAt: row.updatedAt,
    })),
    sessions: user.sessions,
    apiTokens: user.apiTokens,
    actionsYouTook: user.auditEntries,
    // The feed and digest settings, without the feed token's hash or the unsubscribe token.
    updateSettings: user.updateSubscription
      ? [
          {
            feedLinkCreatedAt: user.updateSubscription.feedTokenCreatedAt,
            mailNewVersions: user.updateSubscription.notifyNewVersions,
            mailNewPosts: user.updateSubscription.notifyNewPosts,
            newVersionsSince: user.updateSubscription.newVersionsSince,
            newPostsSince: user.updateSubscription.newPostsSince,
            unsubscribedAt: user.updateSubscription.unsubscribedAt,
            lastDigestAt: user.updateSubscription.lastDigestAt,
            createdAt: user.updateSubscription.createdAt,
          },
        ]
      : [],
    updatesMailed: user.updatesMailed,
    mailsToYou: user.outboxMails,
    // Bug reports the account sent, and those it said "me too" to (a post it may not see now keeps only its id).
    bugReports: user.bugReports.map((row) => ({
      id: row.id,
      postId: row.postId,
      postTitle: titleSeen(row.post),
      version: row.versionLabel,
      gamePatch: row.gamePatch,
      title: row.title,
      body: row.body,
      state: row.state,
      fixedIn: row.fixedVersion?.label ?? null,
      reportedAt: row.createdAt,
      fixedAt: row.fixedAt,
    })),
    uploadsInProgress: user.uploadSessions.map((row) => ({
      id: row.id,
      postId: row.postId,
      postTitle: titleSeen(row.post),
      fileName: row.fileName,
      size: Number(row.size),
      startedAt: row.createdAt,
      lastPartAt: row.lastActivity,
    })),
    bugsYouAlsoHave: user.bugReportMeToos.map((row) => {
      const seen = titleSeen(row.report.post) !== null;
      return {
        reportId: row.reportId,
        title: seen ? row.report.title : null,
        postId: row.report.postId,
        postTitle: titleSeen(row.report.post),
        addedAt: row.createdAt,
      };
    }),
    changesToYourAccount,
  };
}
