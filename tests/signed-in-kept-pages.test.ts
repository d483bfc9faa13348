// A signed-in reader's unchanged /library is answered from its kept copy before Remix runs
// (app/models/reader-pages.server.ts, docs/decisions/025-kept-reader-pages.md). Against the real
// built server (one worker, so a repeated view meets its copy): a repeat is answered without Remix
// (counted in /metrics) with Remix's own headers, and every input of the page, changed through
// the app or straight in the database (another app server's write), shows on the very next view;
// another reader never gets the first reader's page. Needs a build (npm test builds first).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/db.server";
import { loadViewerContext } from "~/models/entitlement.server";
import { hashToken } from "~/models/session.server";
import { libraryPageTurnsAt } from "~/models/reader-pages.server";
import { pageTurnsAt } from "~/request-context.server";
import * as libraryRoute from "~/routes/library";
import { redirectWithSuccess } from "~/toast.server";
import { nsfwCookie } from "~/utils/visitor-cookies.server";
import { appServerArgs, freePort } from "../scripts/app-server";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";

const root = path.resolve(import.meta.dirname, "..");
const serverArgs = appServerArgs();
let server: ChildProcess;
let base: string;
let serverOutput = "";

beforeAll(async () => {
  for (const file of serverArgs.filter((arg) => !arg.startsWith("--")))
    if (!existsSync(file)) throw new Error(`No build at ${file}: run \`npm run build\` first.`);
  await createTiers();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, serverArgs, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      DISABLE_JOBS: "1",
      REQUEST_LOG: "false",
      WEB_CONCURRENCY: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${serverOutput}`);
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`server did not start:\n${serverOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await exited;
});

/** Pages answered from a kept copy so far (the server's metric). */
async function keptSoFar(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^clib_kept_reader_pages_total (\d+)/m.exec(text)?.[1] ?? "0");
}

type View = { status: number; html: string; headers: Headers; kept: boolean };

/** A GET as a browser sends it, and whether it was answered without Remix. */
async function view(cookie: string, pathname = "/library", headers: Record<string, string> = {}): Promise<View> {
  const before = await keptSoFar();
  const response = await fetch(`${base}${pathname}`, { headers: { Cookie: cookie, "Accept-Encoding": "identity", ...headers } });
  const html = (await response.text()).replace(/<!-- -->/g, "");
  return { status: response.status, html, headers: response.headers, kept: (await keptSoFar()) > before };
}

/** Views twice, answering the second view, which must come from the page the first one kept. */
async function keptView(cookie: string, pathname = "/library", headers: Record<string, string> = {}): Promise<View> {
  await view(cookie, pathname, headers);
  const again = await view(cookie, pathname, headers);
  expect(again.kept, "a repeated view is answered from the kept page").toBe(true);
  return again;
}

/** Requests for the vote page whose client left before the answer was sent (the server's metric). */
async function abortedVoteViews(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = /^clib_http_request_duration_seconds_count\{(?=[^}]*route="routes\/inspiration-vote")(?=[^}]*status="aborted")[^}]*\} (\d+)/m.exec(text);
  return Number(line?.[1] ?? "0");
}

/** A GET with only a cookie (no Accept-Language or Accept-Encoding, unlike fetch): given up after 5 s, well before a wait for a page being made would give up by itself (PAGE_MAKING_WAIT_MS). */
function plainGet(pathname: string, cookie: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${pathname}`, { headers: { Cookie: cookie, Connection: "close" }, agent: false, timeout: 5_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("timeout", () => request.destroy(new Error(`no answer to GET ${pathname} within 5 s`)));
    request.on("error", reject);
  });
}

function cardOf(html: string, postId: string): string {
  const card = new RegExp(`<article[^>]*data-post-id="${postId}"[^>]*>.*?</article>`, "s").exec(html);
  expect(card, `the card of ${postId}`).not.toBeNull();
  return card![0];
}

const DOWNLOAD_FORM = /<input type="hidden" name="intent" value="download"\/>/;

async function reader(data: Parameters<typeof createTestUser>[0] = {}) {
  const user = await createTestUser({ tosAccepted: true, ...data });
  return { user, cookie: await sessionCookie(user.id) };
}

// Each view here is two scrapes of /metrics and a page: slow on a busy machine.
describe("a signed-in reader's kept library", { timeout: 180_000 }, () => {
  it("is answered without Remix, with the same bytes and headers, and revalidates by ETag", async () => {
    const { cookie } = await reader();
    const first = await view(cookie);
    expect(first.status).toBe(200);
    expect(first.kept).toBe(false);
    const again = await view(cookie);
    expect(again.kept).toBe(true);
    expect(again.html).toBe(first.html);
    const names = (headers: Headers) => [...headers.keys()].filter((name) => !["x-request-id", "date", "content-length", "transfer-encoding"].includes(name));
    expect(names(again.headers)).toEqual(names(first.headers));
    for (const name of names(first.headers)) expect(again.headers.get(name), name).toBe(first.headers.get(name));
    expect(again.headers.get("cache-control")).toBe("private, no-cache");
    const notModified = await fetch(`${base}/library`, {
      headers: { Cookie: cookie, "Accept-Encoding": "identity", "If-None-Match": first.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);
  });

  it("keeps the page's single fetch data too, under its own address, and shows a change in the next data", async () => {
    const title = "Kept reader data Quill";
    const post = await createPost({ tiers: [TIER_2], title });
    const { cookie } = await reader({ currentTierId: TIER_2 });
    const data = `/library.data?search=${encodeURIComponent(title)}`;
    const first = await view(cookie, data);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("text/x-script");
    expect(first.kept).toBe(false);
    expect(first.html).toContain(title);
    const again = await view(cookie, data);
    expect(again.kept).toBe(true);
    expect(again.html).toBe(first.html);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    // The page itself is its own entry: its first view goes to Remix.
    expect((await view(cookie, `/library?search=${encodeURIComponent(title)}`)).kept).toBe(false);
    // A change made straight in the database (another app server) shows in the next data.
    await db.post.update({ where: { id: post.id }, data: { title: `${title} renamed` } });
    const changed = await view(cookie, `/library.data?search=${encodeURIComponent("Kept reader data")}`);
    expect(changed.kept).toBe(false);
    expect(changed.html).toContain(`${title} renamed`);
  });

  it("is another reader's own page, never the first reader's", async () => {
    const title = "Kept reader Compass";
    const post = await createPost({ tiers: [TIER_2], title });
    const tier2 = await reader({ currentTierId: TIER_2, fullName: "Reader Two" });
    const tier1 = await reader({ currentTierId: TIER_1, fullName: "Reader One" });
    const address = `/library?search=${encodeURIComponent(title)}`;
    const two = await keptView(tier2.cookie, address);
    const one = await keptView(tier1.cookie, address);
    expect(two.html).toContain("Reader Two");
    expect(cardOf(two.html, post.id)).toMatch(DOWNLOAD_FORM);
    expect(one.html).toContain("Reader One");
    expect(one.html).not.toContain("Reader Two");
    expect(cardOf(one.html, post.id)).not.toMatch(DOWNLOAD_FORM);
  });

  it("is made once for many requests that find it stale together: the others wait for it and get the same bytes", async () => {
    const { cookie } = await reader({ fullName: "Reader Crowd" });
    await keptView(cookie);
    await db.user.updateMany({ where: { fullName: "Reader Crowd" }, data: { fullName: "Reader Crowd Renamed" } });
    const before = await keptSoFar();
    const views = await Promise.all(
      Array.from({ length: 24 }, () =>
        fetch(`${base}/library`, { headers: { Cookie: cookie, "Accept-Encoding": "identity" } }).then(async (r) => [r.status, await r.text()] as const),
      ),
    );
    expect(new Set(views.map(([status]) => status))).toEqual(new Set([200]));
    expect(new Set(views.map(([, html]) => html)).size).toBe(1);
    expect(views[0]![1]).toContain("Reader Crowd Renamed");
    // One of them went to Remix (the page had changed); the rest were answered with the page it made.
    expect(await keptSoFar()).toBe(before + 23);
  });

  it("does not leave the next requests waiting when the one making the page lost its client during the stamp read", async () => {
    const { cookie } = await reader({ fullName: "Reader Gone" });
    await db.inspirationConfig.upsert({
      where: { id: 1 },
      create: { id: 1, votingOpen: true, votingEndTime: new Date(Date.now() + 3_600_000) },
      update: { votingOpen: true, votingEndTime: new Date(Date.now() + 3_600_000) },
    });
    const url = new URL(base);
    // The stamp read waits on a lock this test holds; the client that asked leaves meanwhile.
    await db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe("LOCK TABLE shop_emails IN ACCESS EXCLUSIVE MODE");
        const gone = net.connect(Number(url.port), url.hostname);
        await once(gone, "connect");
        gone.write(`GET /inspiration-vote HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
        for (let look = 0; look < 200; look++) {
          const [{ waiting }] = await db.$queryRaw<[{ waiting: number }]>`
            SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE '%reader_page_stamp%' AND pid <> pg_backend_pid()`;
          if (waiting > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const abortedBefore = await abortedVoteViews();
        gone.destroy();
        // The server has seen the connection close (and counted the request as aborted) before the stamp read answers.
        for (let look = 0; look < 200 && (await abortedVoteViews()) === abortedBefore; look++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await abortedVoteViews()).toBe(abortedBefore + 1);
      },
      { timeout: 30_000 },
    );
    // The same reader with the same headers at the same stamp, once the page the first request
    // made has gone stale (the vote page's countdown turns each second): answered, however the
    // first request ended.
    for (let attempt = 0; attempt < 3; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const { status, body } = await plainGet("/inspiration-vote", cookie);
      expect(status).toBe(200);
      expect(body).toContain("Reader Gone");
    }
  });

  it("shows a download, a grant, a tier change, a vote and a post's change on the next view", async () => {
    const title = "Kept reader Lantern";
    const post = await createPost({ tiers: [TIER_2], title });
    const address = `/library?search=${encodeURIComponent(title)}`;
    const downloader = await reader({ currentTierId: TIER_2 });
    expect(cardOf((await keptView(downloader.cookie, address)).html, post.id)).toContain("Never downloaded");
    await db.download.create({ data: { userId: downloader.user.id, postId: post.id, version: "V1.0" } });
    expect(cardOf((await view(downloader.cookie, address)).html, post.id)).not.toContain("Never downloaded");

    const granted = await reader();
    expect(cardOf((await keptView(granted.cookie, address)).html, post.id)).not.toMatch(DOWNLOAD_FORM);
    await db.unlockedContent.create({ data: { userId: granted.user.id, postId: post.id, source: "ADMIN" } });
    expect(cardOf((await view(granted.cookie, address)).html, post.id)).toMatch(DOWNLOAD_FORM);

    const promoted = await reader({ currentTierId: TIER_1 });
    expect(cardOf((await keptView(promoted.cookie, address)).html, post.id)).not.toMatch(DOWNLOAD_FORM);
    await db.user.update({ where: { id: promoted.user.id }, data: { currentTierId: TIER_2 } });
    expect(cardOf((await view(promoted.cookie, address)).html, post.id)).toMatch(DOWNLOAD_FORM);

    // An idea linked to the post, the reader not among its voters, then a vote of theirs.
    const voter = await reader();
    const panel = await db.inspirationPanel.create({ data: { imageUrl: "/x.png", title: "Lantern idea", postId: post.id, status: "SHIPPED" } });
    expect(cardOf((await keptView(voter.cookie, address)).html, post.id)).not.toContain("Inspired by your vote");
    await db.inspirationVoter.create({ data: { panelId: panel.id, userId: voter.user.id } });
    expect(cardOf((await view(voter.cookie, address)).html, post.id)).toContain("Inspired by your vote");

    // A post edited on another app server (straight in the database) shows to a kept reader.
    const renamed = "Kept reader Lantern renamed";
    await keptView(downloader.cookie, `/library?search=${encodeURIComponent("Lantern")}`);
    await db.post.update({ where: { id: post.id }, data: { title: renamed } });
    expect((await view(downloader.cookie, `/library?search=${encodeURIComponent("Lantern")}`)).html).toContain(renamed);
  });

  it("shows a download made through the app, with the terms accepted on the way, on the next view", async () => {
    const title = "Kept reader Anvil";
    const post = await createPost({ tiers: [TIER_2], title });
    const address = `/library?search=${encodeURIComponent(title)}`;
    const { cookie } = await reader({ currentTierId: TIER_2, tosAccepted: false });
    const before = await keptView(cookie, address);
    expect(cardOf(before.html, post.id)).toContain("Never downloaded");
    // The card's form without JavaScript: accept the terms and download, then follow to the file.
    const form = new URLSearchParams({ intent: "download", postId: post.id, acceptTos: "true", back: address });
    const posted = await fetch(`${base}/library`, { method: "POST", body: form, headers: { Cookie: cookie, Origin: base }, redirect: "manual" });
    expect(posted.status).toBe(302);
    const file = await fetch(new URL(posted.headers.get("location")!, base), { headers: { Cookie: cookie } });
    expect(file.status).toBe(200);
    await file.arrayBuffer();
    // The download is recorded as its last byte leaves; the next view after that shows it.
    let after = await view(cookie, address);
    for (let tries = 0; tries < 20 && cardOf(after.html, post.id).includes("Never downloaded"); tries++) after = await view(cookie, address);
    expect(cardOf(after.html, post.id)).not.toContain("Never downloaded");
  });

  it("shows the reader's name and terms answer on the next view", async () => {
    const named = await reader({ fullName: "Before Rename" });
    expect((await keptView(named.cookie)).html).toContain("Before Rename");
    await db.user.update({ where: { id: named.user.id }, data: { fullName: "After Rename" } });
    expect((await view(named.cookie)).html).toContain("After Rename");

    // The terms answer is in the page's data (the download button asks for the terms before a first download).
    const terms = await reader({ tosAccepted: false });
    const unanswered = (await keptView(terms.cookie)).html;
    await db.user.update({ where: { id: terms.user.id }, data: { tosAccepted: true } });
    const answered = await view(terms.cookie);
    expect(answered.kept).toBe(false);
    expect(answered.html).not.toBe(unanswered);
  });

  it("is not answered once the reader's own rows change (reports, confirmations, shop emails, likes, subscriptions)", async () => {
    const post = await createPost({ tiers: [TIER_2] });
    const { user, cookie } = await reader();
    const panel = await db.inspirationPanel.create({ data: { imageUrl: "/y.png", title: "Liked idea" } });
    const version = await db.postVersion.create({ data: { postId: post.id, label: "V1.0", storageKey: `posts/${post.id}/v`, fileName: "v.zip", size: 1n } });
    const patch = await db.gamePatch.create({ data: { name: `Patch for ${user.id}` } });
    const changes: (() => Promise<unknown>)[] = [
      () => db.bugReport.create({ data: { postId: post.id, userId: user.id, versionLabel: "V1.0", title: "Broken", body: "It breaks." } }),
      () => db.patchConfirmation.create({ data: { userId: user.id, versionId: version.id, patchId: patch.id, verdict: "WORKS" } }),
      () => db.shopEmail.create({ data: { userId: user.id, email: `shop-${user.id}@example.com` } }),
      () => db.inspirationLike.create({ data: { userId: user.id, panelId: panel.id, kind: "LIKE" } }),
      () => db.updateSubscription.create({ data: { userId: user.id, unsubscribeToken: `unsubscribe-${user.id}` } }),
      () =>
        db.pledgeEvent.create({
          data: { id: `pledge_start:${user.id}`, userId: user.id, type: "pledge_start", amountCents: 500, date: new Date(), tierId: TIER_2 },
        }),
    ];
    for (const change of changes) {
      await keptView(cookie);
      await change();
      expect((await view(cookie)).kept).toBe(false);
    }
  });

  it("is not answered after sign-out or once the session expired, nor to an admin", async () => {
    const out = await reader({ fullName: "Signing Out" });
    expect((await keptView(out.cookie)).html).toContain("Signing Out");
    const signOut = await fetch(`${base}/api/auth/logout`, { method: "POST", headers: { Cookie: out.cookie, Origin: base }, redirect: "manual" });
    expect(signOut.status).toBeLessThan(400);
    const after = await view(out.cookie);
    expect(after.kept).toBe(false);
    expect(after.html).not.toContain("Signing Out");

    const expiring = await reader({ fullName: "Expiring Session" });
    expect((await keptView(expiring.cookie)).html).toContain("Expiring Session");
    await db.session.updateMany({ where: { userId: expiring.user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await view(expiring.cookie);
    expect(expired.kept).toBe(false);
    expect(expired.html).not.toContain("Expiring Session");

    const admin = await reader({ isAdmin: true, canBeAdmin: true });
    await view(admin.cookie);
    expect((await view(admin.cookie)).kept).toBe(false);
  });

  it("keeps a page per 18+ answer, time zone and language, and still shows a toast once", async () => {
    const { cookie } = await reader();
    const accepted = `${cookie}; ${(await nsfwCookie.serialize(true)).split(";")[0]}`;
    expect((await keptView(cookie)).html).toContain("library-content library-blurred");
    expect((await view(accepted)).html).not.toContain("library-blurred");

    const paris = await keptView(`${cookie}; timeZone=Europe/Paris`);
    const tokyo = await view(`${cookie}; timeZone=Asia/Tokyo`);
    expect(tokyo.kept).toBe(false);
    expect(paris.html).toContain("Europe/Paris");
    expect(tokyo.html).toContain("Asia/Tokyo");
    const german = await view(cookie, "/library", { "Accept-Language": "de-DE" });
    expect(german.kept).toBe(false);
    expect(german.html).toContain('\\"de-DE\\"');

    const toastCookie = (await redirectWithSuccess("/library", "Kept-page toast")).headers.get("Set-Cookie")!.split(";")[0]!;
    const withToast = await view(`${cookie}; ${toastCookie}`);
    expect(withToast.kept).toBe(false);
    expect(withToast.html).toContain("Kept-page toast");
    expect(withToast.headers.get("set-cookie")).toContain("toast-session=");
    const next = await view(cookie);
    expect(next.html).not.toContain("Kept-page toast");
  });
});

describe("a signed-in reader's other kept pages", { timeout: 180_000 }, () => {
  /** A repeat answered from the kept page; the vote page turns each second, so a pair across one is tried again. */
  async function keptRepeat(cookie: string, pathname: string): Promise<View> {
    for (let attempt = 0; ; attempt++) {
      await view(cookie, pathname);
      const again = await view(cookie, pathname);
      if (again.kept || attempt === 4) {
        expect(again.kept, `a repeated view of ${pathname} is answered from the kept page`).toBe(true);
        return again;
      }
    }
  }

  it("keeps the home, vote and info pages, and shows a change to what guests see there on the next view", async () => {
    const { cookie } = await reader({ fullName: "Reader Home" });
    expect((await keptRepeat(cookie, "/infos")).html).toContain("Reader Home");

    expect((await keptRepeat(cookie, "/")).html).not.toContain("Kept home panel");
    // Made on another app server (straight in the database): its triggers move the stamp.
    await db.panel.create({ data: { title: "Kept home panel", link: "https://example.com/kept" } });
    const home = await view(cookie, "/");
    expect(home.kept).toBe(false);
    expect(home.html).toContain("Kept home panel");

    await keptRepeat(cookie, "/inspiration-vote");
    await db.inspirationConfig.upsert({ where: { id: 1 }, create: { id: 1, title: "Kept vote title" }, update: { title: "Kept vote title" } });
    const vote = await view(cookie, "/inspiration-vote");
    expect(vote.kept).toBe(false);
    expect(vote.html).toContain("Kept vote title");
  });
});

describe("the library listing API for a signed-in reader", { timeout: 180_000 }, () => {
  type Listing = { posts: { postId: string; title: string; unlocked: boolean }[] };
  const listingOf = (answer: View) => JSON.parse(answer.html) as Listing;

  it("is kept like the library page: the same bytes without Remix, a grant or a publication shows on the next request", async () => {
    const title = "Kept listing Sextant";
    const post = await createPost({ tiers: [TIER_2], title });
    const { user, cookie } = await reader({ currentTierId: TIER_1 });
    const first = await view(cookie, "/api/library/posts");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(first.headers.get("cache-control")).toBe("private, no-store");
    expect(listingOf(first).posts.find((item) => item.postId === post.id)).toMatchObject({ title, unlocked: false });
    const again = await view(cookie, "/api/library/posts");
    expect(again.kept).toBe(true);
    expect(again.html).toBe(first.html);
    const notModified = await fetch(`${base}/api/library/posts`, {
      headers: { Cookie: cookie, "Accept-Encoding": "identity", "If-None-Match": first.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);
    const compressed = await fetch(`${base}/api/library/posts`, { headers: { Cookie: cookie, "Accept-Encoding": "gzip" } });
    expect(compressed.headers.get("content-encoding")).toBe("gzip");
    expect(await compressed.text()).toBe(first.html);

    // A grant made on another app server (straight in the database) shows on the next request.
    await db.unlockedContent.create({ data: { userId: user.id, postId: post.id, source: "ADMIN" } });
    const granted = await view(cookie, "/api/library/posts");
    expect(granted.kept).toBe(false);
    expect(listingOf(granted).posts.find((item) => item.postId === post.id)).toMatchObject({ unlocked: true });

    // A post scheduled two seconds ahead is listed once its time has come, with no write.
    const scheduled = await createPost({ title: "Kept listing Astrolabe" });
    await db.post.update({ where: { id: scheduled.id }, data: { publishAt: new Date(Date.now() + 2_000) } });
    expect(listingOf(await view(cookie, "/api/library/posts")).posts.map((item) => item.postId)).not.toContain(scheduled.id);
    expect((await view(cookie, "/api/library/posts")).kept).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const published = await view(cookie, "/api/library/posts");
    expect(published.kept).toBe(false);
    expect(listingOf(published).posts.map((item) => item.postId)).toContain(scheduled.id);
  });

  it("is never kept for a personal API token", async () => {
    const { user } = await reader({ currentTierId: TIER_2 });
    const token = "kept-listing-token";
    await db.apiToken.create({ data: { userId: user.id, tokenHash: hashToken(token) } });
    const asked = async () => {
      const before = await keptSoFar();
      const response = await fetch(`${base}/api/library/posts`, { headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      return (await keptSoFar()) > before;
    };
    expect(await asked()).toBe(false);
    expect(await asked()).toBe(false);
  });
});

describe("a guest's kept pages", { timeout: 180_000 }, () => {
  /** A guest's GET, as a browser sends it (guests' kept answers are not counted in /metrics). */
  const guestView = async (pathname: string) => (await fetch(`${base}${pathname}`, { headers: { "Accept-Encoding": "identity" } })).text();

  it("turn when a release step opens or a publication comes, with no write, on the post page and in the library", async () => {
    const title = "Kept guest Orrery";
    const post = await createPost({ tiers: [TIER_2], title });
    const opensAt = new Date(Date.now() + 2_500);
    await db.releaseStep.create({ data: { postId: post.id, position: 0, audienceTierId: null, tierIds: [], opensOn: opensAt, opensAt } });
    const scheduled = await createPost({ title: "Kept guest Armillary" });
    await db.post.update({ where: { id: scheduled.id }, data: { publishAt: opensAt } });
    const search = `/library?search=${encodeURIComponent("Kept guest")}`;

    const before = await guestView(`/library/${post.id}`);
    expect(before).toContain(title);
    expect(before).not.toContain('<meta property="og:description" content="Free"/>');
    expect(await guestView(search)).not.toContain("Kept guest Armillary");
    // Kept across the next whole seconds: nothing it shows turns before the step.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, opensAt.getTime() - Date.now() + 150)));
    expect(await guestView(`/library/${post.id}`)).toContain('<meta property="og:description" content="Free"/>');
    expect(await guestView(search)).toContain("Kept guest Armillary");
  });
});

describe("the stamp's tables", () => {
  /** Tables with a key to users whose rows no kept page shows, and why they are left out of `reader_page_stamp`. */
  const LEFT_OUT: Record<string, string> = {
    sessions: "the request's own session is checked (unknown or expired: no stamp); others are not shown",
    api_tokens: "not shown on a page; their last use is written every minute",
    audit_log: "an admin's log, never shown to a reader",
    update_mail_ledger: "which digests were mailed; not shown on a page",
    mail_outbox: "mail waiting to be sent; not shown on a page",
    upload_sessions: "admins' uploads; an admin's pages are never kept",
  };

  it("covers every table with a key to users, or says why not", async () => {
    const source = readFileSync(path.join(root, "prisma/functions/reader_page_stamp.sql"), "utf8");
    const tables = await db.$queryRaw<
      { name: string }[]
    >`SELECT DISTINCT conrelid::regclass::text AS name FROM pg_constraint WHERE contype = 'f' AND confrelid = 'users'::regclass`;
    expect(tables.length).toBeGreaterThan(10);
    for (const { name } of tables) {
      const covered = new RegExp(`FROM "?${name}"? t WHERE`).test(source);
      expect(covered || name in LEFT_OUT, `${name}: in the stamp, or left out with a reason`).toBe(true);
      expect(covered && name in LEFT_OUT, `${name}: both in the stamp and left out`).toBe(false);
    }
  });
});

describe("when a kept reader page goes stale with time alone", () => {
  const DAY = 86_400_000;

  it("not at the minute: a minute later the page's data are the same bytes when no badge or countdown turns", async () => {
    const { cookie } = await reader();
    // New for another two days, and a step "in 5 days" that reads so for hours yet.
    const post = await createPost({ tiers: [TIER_2], firstPublishedAt: new Date(Date.now() - DAY) });
    await db.releaseStep.create({
      data: { postId: post.id, position: 0, audienceTierId: null, opensOn: new Date(Date.now() + 5 * DAY), opensAt: new Date(Date.now() + 5 * DAY) },
    });
    const view = async () => {
      const notes: (number | undefined)[] = [];
      const response = await callRoute(
        {
          loader: async (args) => {
            const data = await libraryRoute.loader(args);
            notes.push(pageTurnsAt());
            return data;
          },
        },
        { path: "/library", cookie },
      );
      return { body: await response.text(), turnsAt: notes[0] };
    };
    const first = await view();
    expect(first.body).toContain('"new"');
    // The page shows the badge the server decided.
    const page = await (await fetch(`${base}/library`, { headers: { Cookie: cookie } })).text();
    expect(page).toMatch(new RegExp(`data-post-id="${post.id}"(?:(?!data-post-id=)[\\s\\S])*?<span class="badge badge-new">New</span>`));
    expect(first.body).toContain("in 5 days");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 });
    try {
      const later = await view();
      expect(later.body).toBe(first.body);
      // Noted for the kept page: hours ahead, not the next minute.
      expect(later.turnsAt).toBeGreaterThan(Date.now() + 3_600_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it("when a badge begins or ends, a countdown's words turn, or a step opens", async () => {
    const { user } = await reader();
    const now = Date.now();
    const turnsAt = async () => {
      const context = await loadViewerContext(user, { withLibraryStamp: true, withDownloads: true });
      return libraryPageTurnsAt(context.libraryStamp, now);
    };
    // Posts published long ago and not updated since (the earlier tests' too): nothing turns with the clock.
    await db.releaseStep.deleteMany();
    await db.post.updateMany({ data: { firstPublishedAt: new Date(now - 30 * DAY), lastUpdated: new Date(now - 30 * DAY), publishAt: null } });
    await createPost({ tiers: [TIER_1] });
    expect(await turnsAt()).toBeUndefined();
    // New until 3 days after its first publication.
    const published = now - 3 * DAY + 600_000;
    const post = await createPost({ tiers: [TIER_2], firstPublishedAt: new Date(published) });
    expect(await turnsAt()).toBe(published + 3 * DAY + 1);
    await db.post.update({ where: { id: post.id }, data: { firstPublishedAt: new Date(now - 30 * DAY), lastUpdated: new Date(now - 30 * DAY) } });
    expect(await turnsAt()).toBeUndefined();
    // A step opening in 3 days and 25.5 s reads "in 3 days" until 2 days, 11 hours and 59 minutes are left.
    const opensAt = now + 3 * DAY + 25_500;
    await db.releaseStep.create({ data: { postId: post.id, position: 0, audienceTierId: null, opensOn: new Date(opensAt), opensAt: new Date(opensAt) } });
    expect(await turnsAt()).toBe(opensAt - (2 * 24 * 60 + 11 * 60 + 59) * 60_000);
    // A step opening in 90.5 s: "in 2 minutes" turns to "in 1 minute" half a second from now.
    await db.releaseStep.create({
      data: { postId: post.id, position: 1, audienceTierId: null, opensOn: new Date(now + 90_500), opensAt: new Date(now + 90_500) },
    });
    expect(await turnsAt()).toBe(now + 30_500);
  });
});
