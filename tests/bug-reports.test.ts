// Bug reports from downloaders (docs/product.md#bug-reports), against the real database and the
// SMTP capture: only an account with a completed download may report or say "me too" (page and
// /api); the post page lists known issues without who reported them, and only while the post is
// visible; only admins move a report; a fix is told exactly once to exactly the reporter and the
// "me too"s who chose version mails (and in their feeds); Insights count open reports and the
// median time to a fix.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { FIX_NOTICE_SUBJECT } from "~/models/bug-report.server";
import { bugReportInsights, bugReportsTable } from "~/models/insights/bug-reports.server";
import { deliverDueMail } from "~/models/mail-outbox.server";
import { feedForToken, regenerateFeedToken, saveUpdatePreferences } from "~/models/update-notifications.server";
import { BUG_REPORT_MESSAGES } from "~/utils/bug-report-schemas";
import { parseInsightsRange } from "~/utils/insights-schemas";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers } from "./library-fixtures";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();
const DAY = 86_400_000;

const reportsApi = () => import("~/routes/api.library.posts.$id.reports");
const meTooApi = () => import("~/routes/api.reports.$id.me-too");
const adminApi = () => import("~/routes/api.admin.reports.$id");
const adminListApi = () => import("~/routes/api.admin.reports");
const postPage = () => import("~/routes/library_.$postId");
const triagePage = () => import("~/routes/admin_.reports");

type Fixture = { postId: string; v1: string; v2: string };

async function postWithVersions(title: string): Promise<Fixture> {
  const post = await createPost({ paid: false, title });
  const v1 = await db.postVersion.create({
    data: {
      postId: post.id,
      label: "V1.0",
      storageKey: post.driveFileId!,
      fileName: post.fileName!,
      size: post.fileSize!,
      createdAt: new Date(Date.now() - 5 * DAY),
    },
  });
  const v2 = await db.postVersion.create({
    data: {
      postId: post.id,
      label: "V1.1",
      notes: "Fixed the **flickering** roof.",
      storageKey: post.driveFileId!,
      fileName: post.fileName!,
      size: post.fileSize!,
    },
  });
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: v2.id, version: "V1.1" } });
  return { postId: post.id, v1: v1.id, v2: v2.id };
}

async function downloaded(user: User, fixture: Fixture, versionId = fixture.v1, label = "V1.0") {
  await db.download.create({ data: { userId: user.id, postId: fixture.postId, version: label, versionId, accessSource: "FREE" } });
}

async function report(user: User, postId: string, body: unknown) {
  return callRoute(await reportsApi(), {
    method: "POST",
    path: `/api/library/posts/${postId}/reports`,
    params: { id: postId },
    json: body,
    cookie: await sessionCookie(user.id),
  });
}

const goodReport = { title: "Roof flickers at night", body: "The roof texture flickers when the lights are on.", gamePatch: "1.113" };

let admin: User;
let reporter: User;
let alsoA: User;
let alsoB: User;
let stranger: User;
let main: Fixture;

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, fullName: "Admin Person" });
  reporter = await createTestUser({ fullName: "Reporter Secretname" });
  alsoA = await createTestUser({ fullName: "Also Alpha" });
  alsoB = await createTestUser({ fullName: "Also Beta" });
  stranger = await createTestUser({ fullName: "Never Downloaded" });
  main = await postWithVersions("Country House");
  for (const user of [reporter, alsoA, alsoB]) await downloaded(user, main);
});

describe("who may report", () => {
  it("refuses an account without a completed download, on the page and over /api, and writes nothing", async () => {
    const api = await report(stranger, main.postId, goodReport);
    expect(api.status).toBe(403);
    expect(await api.json()).toEqual({ error: BUG_REPORT_MESSAGES.notDownloaded });
    const page = await callRoute(await postPage(), {
      method: "POST",
      path: `/library/${main.postId}`,
      params: { postId: main.postId },
      form: { intent: "report", ...goodReport },
      cookie: await sessionCookie(stranger.id),
    });
    expect(page.status).toBe(403);
    expect(((await page.json()) as { message: string }).message).toBe(BUG_REPORT_MESSAGES.notDownloaded);
    // Unverified and restricted accounts are refused even with a download; a guest must log in.
    const unverified = await createTestUser({ mailVerified: false });
    const restricted = await createTestUser({ restricted: true });
    for (const user of [unverified, restricted]) await downloaded(user, main);
    expect((await report(unverified, main.postId, goodReport)).status).toBe(403);
    expect(await (await report(restricted, main.postId, goodReport)).json()).toEqual({ error: "Your account is restricted." });
    const guest = await callRoute(await reportsApi(), {
      method: "POST",
      path: `/api/library/posts/${main.postId}/reports`,
      params: { id: main.postId },
      json: goodReport,
    });
    expect(guest.status).toBe(401);
    expect(await db.bugReport.count({ where: { postId: main.postId } })).toBe(0);
    // The page tells the stranger why there is no form.
    const shown = (await (
      await callRoute(await postPage(), { path: `/library/${main.postId}`, params: { postId: main.postId }, cookie: await sessionCookie(stranger.id) })
    ).json()) as { reportForm: { canReport: boolean; reason?: string } };
    expect(shown.reportForm).toEqual({ canReport: false, reason: "not-downloaded" });
  });

  it("takes a downloader's report with the version they last downloaded and the game patch; checks lengths", async () => {
    const tooShort = await report(reporter, main.postId, { title: "x", body: "short" });
    expect(tooShort.status).toBe(400);
    expect(await tooShort.json()).toEqual({ error: BUG_REPORT_MESSAGES.bodyTooShort });
    const longTitle = await report(reporter, main.postId, { ...goodReport, title: "t".repeat(121) });
    expect(await longTitle.json()).toEqual({ error: BUG_REPORT_MESSAGES.titleTooLong });
    const created = await report(reporter, main.postId, goodReport);
    expect(created.status).toBe(201);
    const { report: made } = (await created.json()) as { report: { id: string; state: string; stateWords: string } };
    expect(made).toMatchObject({ state: "NEW", stateWords: "New" });
    expect(await db.bugReport.findUniqueOrThrow({ where: { id: made.id } })).toMatchObject({
      userId: reporter.id,
      versionId: main.v1,
      versionLabel: "V1.0",
      gamePatch: "1.113",
      title: goodReport.title,
    });
    // The page's form: a field's error next to the field, without JavaScript.
    const page = await callRoute(await postPage(), {
      method: "POST",
      path: `/library/${main.postId}`,
      params: { postId: main.postId },
      form: { intent: "report", title: "", body: "Something is wrong with the doors." },
      cookie: await sessionCookie(alsoB.id),
    });
    expect(page.status).toBe(400);
    expect(await page.json()).toMatchObject({ ok: false, fields: { title: BUG_REPORT_MESSAGES.titleRequired } });
  });

  it("limits reports per account with a clear 429", async () => {
    const fixture = await postWithVersions("Limit House");
    const busy = await createTestUser();
    await downloaded(busy, fixture);
    for (let index = 0; index < 5; index++) expect((await report(busy, fixture.postId, { ...goodReport, title: `Bug ${index}` })).status).toBe(201);
    const refused = await report(busy, fixture.postId, goodReport);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^You have sent too many bug reports\. Please try again in \d+ minutes?\.$/);
    expect(await db.bugReport.count({ where: { postId: fixture.postId } })).toBe(5);
  });
});

describe("me too, known issues and triage", () => {
  let reportId: string;

  beforeAll(async () => {
    reportId = (await db.bugReport.findFirstOrThrow({ where: { postId: main.postId, userId: reporter.id } })).id;
  });

  it("takes one \u201cme too\u201d per downloader, removable; not from the reporter or a non-downloader", async () => {
    const route = await meTooApi();
    const call = async (user: User, method: "POST" | "DELETE") =>
      callRoute(route, { method, path: `/api/reports/${reportId}/me-too`, params: { id: reportId }, cookie: await sessionCookie(user.id) });
    expect(await (await call(alsoA, "POST")).json()).toEqual({ meToos: 1 });
    expect(await (await call(alsoA, "POST")).json()).toEqual({ meToos: 1 });
    expect(await (await call(alsoB, "POST")).json()).toEqual({ meToos: 2 });
    expect(await (await call(alsoB, "DELETE")).json()).toEqual({ meToos: 1 });
    const own = await call(reporter, "POST");
    expect(own.status).toBe(409);
    const stray = await call(stranger, "POST");
    expect(stray.status).toBe(403);
    expect(await stray.json()).toEqual({ error: BUG_REPORT_MESSAGES.notDownloaded });
    // The page's button (no JavaScript): back to the known issues.
    const page = await callRoute(await postPage(), {
      method: "POST",
      path: `/library/${main.postId}`,
      params: { postId: main.postId },
      form: { intent: "me-too", reportId },
      cookie: await sessionCookie(alsoB.id),
    });
    expect(page.status).toBe(303);
    expect(await db.bugReportMeToo.findMany({ where: { reportId }, select: { userId: true }, orderBy: { userId: "asc" } })).toEqual(
      [alsoA.id, alsoB.id].sort().map((userId) => ({ userId })),
    );
  });

  it("shows the post's known issues with titles and states, never who reported them", async () => {
    for (const cookie of [undefined, await sessionCookie(alsoA.id), await sessionCookie(stranger.id)]) {
      const response = await callRoute(await postPage(), { path: `/library/${main.postId}`, params: { postId: main.postId }, cookie });
      const text = await response.text();
      const data = JSON.parse(text) as { knownIssues: { title: string; stateWords: string; meToos: number }[] };
      expect(data.knownIssues).toContainEqual(expect.objectContaining({ title: goodReport.title, stateWords: "New", meToos: 2 }));
      for (const secret of [reporter.fullName!, reporter.email!, reporter.id, goodReport.body, "1.113"]) expect(text).not.toContain(secret);
      const api = await (
        await callRoute(await reportsApi(), { path: `/api/library/posts/${main.postId}/reports`, params: { id: main.postId }, cookie })
      ).text();
      expect(api).toContain(goodReport.title);
      for (const secret of [reporter.fullName!, reporter.email!, reporter.id]) expect(api).not.toContain(secret);
    }
  });

  it("follows the post's visibility: a scheduled or disabled post's issues are not found", async () => {
    const hidden = await postWithVersions("Hidden House zq");
    await downloaded(alsoA, hidden);
    const made = (await (await report(alsoA, hidden.postId, { ...goodReport, title: "Hidden bug zq" })).json()) as { report: { id: string } };
    for (const change of [{ enabled: false }, { enabled: true, publishAt: new Date(Date.now() + DAY) }]) {
      await db.post.update({ where: { id: hidden.postId }, data: change });
      for (const cookie of [undefined, await sessionCookie(alsoA.id)]) {
        const api = await callRoute(await reportsApi(), { path: `/api/library/posts/${hidden.postId}/reports`, params: { id: hidden.postId }, cookie });
        expect(api.status).toBe(404);
        expect(await api.text()).not.toContain("Hidden bug zq");
      }
      // Nor can anyone report on it or say "me too".
      expect((await report(alsoA, hidden.postId, goodReport)).status).toBe(404);
      const meToo = await callRoute(await meTooApi(), {
        method: "POST",
        path: `/api/reports/${made.report.id}/me-too`,
        params: { id: made.report.id },
        cookie: await sessionCookie(alsoB.id),
      });
      expect(meToo.status).toBe(404);
      // Admins still see it.
      const asAdmin = await callRoute(await reportsApi(), {
        path: `/api/library/posts/${hidden.postId}/reports`,
        params: { id: hidden.postId },
        cookie: await sessionCookie(admin.id),
      });
      expect(asAdmin.status).toBe(200);
    }
  });

  it("lets only admins move a report, page and /api, and shows them the reporter", async () => {
    const route = await adminApi();
    for (const user of [reporter, alsoA, stranger]) {
      const refused = await callRoute(route, {
        method: "PUT",
        path: `/api/admin/reports/${reportId}`,
        params: { id: reportId },
        json: { state: "WONT_FIX" },
        cookie: await sessionCookie(user.id),
      });
      expect(refused.status).toBe(403);
      const page = await callRoute(await triagePage(), {
        method: "POST",
        path: "/admin/reports",
        form: { reportId, state: "WONT_FIX" },
        cookie: await sessionCookie(user.id),
      });
      expect(page.status).toBe(302);
      expect(page.headers.get("Location")).toBe("/");
    }
    const restrictedAdmin = await createTestUser({ isAdmin: true, canBeAdmin: true, restricted: true });
    const byRestricted = await callRoute(route, {
      method: "PUT",
      path: `/api/admin/reports/${reportId}`,
      params: { id: reportId },
      json: { state: "WONT_FIX" },
      cookie: await sessionCookie(restrictedAdmin.id),
    });
    expect(byRestricted.status).toBe(403);
    expect(await db.bugReport.findUniqueOrThrow({ where: { id: reportId } })).toMatchObject({ state: "NEW" });
    // An admin confirms it; "fixed" needs a version of this post.
    const confirmed = await callRoute(route, {
      method: "PUT",
      path: `/api/admin/reports/${reportId}`,
      params: { id: reportId },
      json: { state: "CONFIRMED" },
      cookie: await sessionCookie(admin.id),
    });
    expect(confirmed.status).toBe(200);
    const noVersion = await callRoute(route, {
      method: "PUT",
      path: `/api/admin/reports/${reportId}`,
      params: { id: reportId },
      json: { state: "FIXED" },
      cookie: await sessionCookie(admin.id),
    });
    expect(await noVersion.json()).toEqual({ error: BUG_REPORT_MESSAGES.fixedNeedsVersion });
    const other = await postWithVersions("Other House");
    const wrongPost = await callRoute(route, {
      method: "PUT",
      path: `/api/admin/reports/${reportId}`,
      params: { id: reportId },
      json: { state: "FIXED", fixedVersionId: other.v2 },
      cookie: await sessionCookie(admin.id),
    });
    expect(await wrongPost.json()).toEqual({ error: BUG_REPORT_MESSAGES.unknownVersion });
    const list = await callRoute(await adminListApi(), {
      path: `/api/admin/reports?state=CONFIRMED&post=${main.postId}`,
      cookie: await sessionCookie(admin.id),
    });
    const body = (await list.json()) as { reports: { id: string; meToos: number; reporter: { name: string } }[] };
    expect(body.reports).toEqual([expect.objectContaining({ id: reportId, meToos: 2, reporter: expect.objectContaining({ name: "Reporter Secretname" }) })]);
    const listByFan = await callRoute(await adminListApi(), { path: "/api/admin/reports", cookie: await sessionCookie(reporter.id) });
    expect(listByFan.status).toBe(403);
  });

  it("tells the reporter and the \u201cme too\u201ds who chose version mails exactly once, and their feeds", async () => {
    await saveUpdatePreferences(reporter.id, { newVersions: "on" });
    await saveUpdatePreferences(alsoA.id, { newVersions: "on" });
    // alsoB said "me too" but chose no mails: the feed only. An unrelated subscriber hears nothing.
    const bystander = await createTestUser();
    await downloaded(bystander, main);
    await saveUpdatePreferences(bystander.id, { newVersions: "on" });
    const before = mail().messages.length;
    const route = await adminApi();
    const markFixed = async (versionId: string) =>
      callRoute(route, {
        method: "PUT",
        path: `/api/admin/reports/${reportId}`,
        params: { id: reportId },
        json: { state: "FIXED", fixedVersionId: versionId },
        cookie: await sessionCookie(admin.id),
      });
    const first = await markFixed(main.v2);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ noticesQueued: 2, report: { stateWords: "Fixed in V1.1" } });
    // Fixed again, in the same and then another version, through the page too, and the outbox run twice.
    expect(await (await markFixed(main.v2)).json()).toMatchObject({ noticesQueued: 0 });
    const page = await callRoute(await triagePage(), {
      method: "POST",
      path: "/admin/reports",
      form: { reportId, state: "FIXED", fixedVersionId: main.v1, back: "/admin/reports?state=ALL" },
      cookie: await sessionCookie(admin.id),
    });
    expect(page.status).toBe(303);
    expect(await (await markFixed(main.v2)).json()).toMatchObject({ noticesQueued: 0 });
    await deliverDueMail();
    await deliverDueMail();
    const toReporter = await mail().nextMailTo(reporter.email!);
    const toA = await mail().nextMailTo(alsoA.email!);
    for (const message of [toReporter, toA]) {
      expect(message.subject).toBe(FIX_NOTICE_SUBJECT);
      expect(message.text).toContain(`\u201c${goodReport.title}\u201d in Country House is fixed in V1.1.`);
      expect(message.text).toContain(`/library/${main.postId}#version-${main.v2}`);
    }
    expect(toReporter.text).toContain("You reported this bug.");
    expect(toA.text).toContain("You said \u201cme too\u201d to this bug.");
    const sent = mail()
      .messages.slice(before)
      .filter((message) => message.subject === FIX_NOTICE_SUBJECT);
    expect(sent.map((message) => message.to.join(",")).sort()).toEqual([reporter.email!, alsoA.email!].sort());
    expect(await db.outboxMail.count({ where: { kind: "fix" } })).toBe(2);
    // The feeds: the reporter's and each "me too"'s, one entry for the fix; nobody else's.
    for (const [user, told] of [
      [reporter, true],
      [alsoB, true],
      [bystander, false],
    ] as const) {
      const { url } = await regenerateFeedToken(user.id);
      const feed = (await feedForToken(/\/feeds\/([^/]+)\.atom$/.exec(url)![1]!))!;
      expect(feed.split(`bug-fixed/${reportId}`).length - 1).toBe(told ? 1 : 0);
    }
    // A "me too" on a fixed report is refused: the report is closed.
    const late = await callRoute(await meTooApi(), {
      method: "POST",
      path: `/api/reports/${reportId}/me-too`,
      params: { id: reportId },
      cookie: await sessionCookie(bystander.id),
    });
    expect(late.status).toBe(409);
  });

  it("mails no fix notice naming a post the person may not see; their feed tells them once it is visible", async () => {
    const hidden = await postWithVersions("Secret Manor");
    const fan = await createTestUser({ fullName: "Manor Reporter" });
    await downloaded(fan, hidden);
    await saveUpdatePreferences(fan.id, { newVersions: "on" });
    const filed = await report(fan, hidden.postId, { ...goodReport, title: "Door sticks" });
    const { report: filedReport } = (await filed.json()) as { report: { id: string } };
    // Disabled after the report (a scheduled post is hidden alike): the admin still marks it fixed.
    await db.post.update({ where: { id: hidden.postId }, data: { enabled: false } });
    const fixed = await callRoute(await adminApi(), {
      method: "PUT",
      path: `/api/admin/reports/${filedReport.id}`,
      params: { id: filedReport.id },
      json: { state: "FIXED", fixedVersionId: hidden.v2 },
      cookie: await sessionCookie(admin.id),
    });
    expect(fixed.status).toBe(200);
    expect(await fixed.json()).toMatchObject({ noticesQueued: 0 });
    expect(await db.outboxMail.count({ where: { kind: "fix", userId: fan.id } })).toBe(0);
    const { url } = await regenerateFeedToken(fan.id);
    const token = /\/feeds\/([^/]+)\.atom$/.exec(url)![1]!;
    expect(await feedForToken(token)).not.toContain("Secret Manor");
    await db.post.update({ where: { id: hidden.postId }, data: { enabled: true } });
    expect((await feedForToken(token))!.split(`bug-fixed/${filedReport.id}`).length - 1).toBe(1);
  });
});

describe("insights", () => {
  it("counts open reports per post and the median time from report to fix in the range", async () => {
    const fixture = await postWithVersions("Insight Manor");
    const person = await createTestUser();
    const now = Date.now();
    const make = (state: "NEW" | "CONFIRMED" | "FIXED" | "WONT_FIX", createdDaysAgo: number, fixedDaysAgo: number | null) =>
      db.bugReport.create({
        data: {
          postId: fixture.postId,
          userId: person.id,
          versionLabel: "V1.0",
          title: `${state} ${createdDaysAgo}`,
          body: "Something is wrong here.",
          state,
          createdAt: new Date(now - createdDaysAgo * DAY),
          fixedAt: fixedDaysAgo === null ? null : new Date(now - fixedDaysAgo * DAY),
          fixedVersionId: fixedDaysAgo === null ? null : fixture.v2,
        },
      });
    await make("NEW", 3, null);
    await make("NEW", 2, null);
    await make("CONFIRMED", 4, null);
    await make("WONT_FIX", 4, null);
    // Fixed in the range after 1, 2 and 6 days (median 2); one fixed long before the range.
    await make("FIXED", 3, 2);
    await make("FIXED", 5, 3);
    await make("FIXED", 10, 4);
    await make("FIXED", 200, 100);
    const parsed = parseInsightsRange(new URLSearchParams("range=30"));
    if (!parsed.success) throw new Error(parsed.error);
    const insights = await bugReportInsights(parsed.range);
    const post = insights.posts.find((item) => item.postId === fixture.postId)!;
    expect(post).toMatchObject({ new: 2, confirmed: 1, open: 3, fixed: 3, medianDaysToFix: 2 });
    const row = bugReportsTable(insights).rows.find((cells) => cells[0] === "Insight Manor");
    expect(row).toEqual(["Insight Manor", 2, 1, 3, 3, 2]);
    // The CSV export: the same table.
    const csvRoute = await import("~/routes/admin_.insights.$chart[.]csv");
    const csv = await callRoute(csvRoute, {
      path: "/admin/insights/bug-reports.csv?range=30",
      params: { chart: "bug-reports" },
      cookie: await sessionCookie(admin.id),
    });
    expect(csv.status).toBe(200);
    const text = await csv.text();
    expect(text).toContain("Post,New,Confirmed,Open reports,Fixed in range,Median days to fix");
    expect(text).toContain("Insight Manor,2,1,3,3,2");
  });
});
