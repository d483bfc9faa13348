// Two app servers behind one load balancer, as a site that outgrew one machine runs them: two
// separate production servers (build/server.js, one process each, WEB_CONCURRENCY=1) on their own
// ports and data folders, sharing one PostgreSQL database, one S3 bucket (s3rver), one
// SESSION_SECRET and the load balancer's public address as APP_URL. Nothing passes between them
// but the database and the bucket: a change, a session, a rate limit, the interval job's lock and
// an uploaded file must hold across both. Needs a build (npm test builds first; REMIX_BUILD_DIR
// picks another one).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { traceTag } from "~/utils/trace-stamp.server";
import { downloadFileName } from "~/utils/download-name";
import { nsfwCookie } from "~/utils/visitor-cookies.server";
import { memberResources, type FakeMember, type FakeTier } from "./fakes/patreon-api";
import { createTestUser, sessionCookie } from "./helpers";
import { createTiers, TIER_2, TIER_3 } from "./library-fixtures";
import { startS3rver } from "./storage-s3rver";
import { writeZip } from "./zip-files";
import { appServerArgs, freePort } from "../scripts/app-server";

const root = path.resolve(import.meta.dirname, "..");
const serverArgs = appServerArgs();
/** The load balancer's public address: both servers are configured with it, as behind one in production. */
const APP_URL = "https://library.example.test";
const BUCKET = "two-servers";
const CREATOR_TOKEN = "two-servers-creator-token";
const CAMPAIGN_ID = "campaign-two-servers";
type AppServer = { name: "A" | "B"; base: string; child: ChildProcess; output: string; dataDir: string };

const scratch = mkdtempSync(path.join(os.tmpdir(), "clib-two-servers-"));
let s3: Awaited<ReturnType<typeof startS3rver>>;
let platform: Awaited<ReturnType<typeof startHeldPlatform>>;
let A: AppServer;
let B: AppServer;
/** Every server process started, for the last-resort kill below. */
const children: ChildProcess[] = [];

// ------------------------------------------------------------------ a support platform that waits

const SYNC_TIERS: FakeTier[] = [{ id: TIER_3, title: "Tier 3", amountCents: 1000 }];
const SYNC_MEMBER: FakeMember = {
  memberId: "member-two-servers",
  patreonUserId: "pu-two-servers",
  email: "patron-two-servers@patreon.example",
  fullName: "Patron Two Servers",
  patronStatus: "active_patron",
  tierIds: [TIER_3],
  pledgeHistory: [],
};

/**
 * The creator's member list (one page, one member) as the support platform serves it, except that
 * while held every request for it waits until `release()`: a sync run holds the job's lock for as
 * long as the test wants.
 */
async function startHeldPlatform() {
  let held = false;
  let waiting: (() => void)[] = [];
  const memberRequests: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "Content-Type": "application/vnd.api+json" });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${CREATOR_TOKEN}`) return send(401, { errors: [{ status: "401" }] });
    if (url.pathname !== `/api/oauth2/v2/campaigns/${CAMPAIGN_ID}/members`) return send(404, { errors: [{ status: "404" }] });
    memberRequests.push(url.pathname);
    const answer = () => {
      const { data, included } = memberResources(SYNC_MEMBER, SYNC_TIERS);
      send(200, { data: [data], included, links: {}, meta: { pagination: { cursors: { next: null }, total: 1 } } });
    };
    if (held) waiting.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/oauth2/v2`,
    memberRequests,
    hold: () => (held = true),
    release: () => {
      held = false;
      for (const answer of waiting) answer();
      waiting = [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ------------------------------------------------------------------ the two servers

async function startServer(name: AppServer["name"]): Promise<AppServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(scratch, `data-${name}-`));
  // Production defaults for jobs and mail; each server has a data folder of its own, so nothing
  // reaches the other through a local file.
  const { DISABLE_JOBS: _jobs, SMTP_URL: _smtp, MAIL_TO_FILES: _mail, ...inherited } = process.env;
  const child = spawn(process.execPath, serverArgs, {
    cwd: root,
    env: {
      ...inherited,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL,
      WEB_CONCURRENCY: "1",
      REQUEST_LOG: "false",
      DATA_DIR: dataDir,
      // The same database, secret and bucket for both.
      DATABASE_URL: process.env.DATABASE_URL,
      SESSION_SECRET: process.env.SESSION_SECRET,
      STORAGE_DRIVER: "s3",
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: "us-east-1",
      S3_BUCKET: BUCKET,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
      PATREON_API_URL: platform.apiUrl,
      PATREON_CREATOR_ACCESS_TOKEN: CREATOR_TOKEN,
      PATREON_CAMPAIGN_ID: CAMPAIGN_ID,
      // No timer run during the test: every run of the interval job is one an admin forced.
      INTERVAL_MINUTES: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const server: AppServer = { name, base: `http://127.0.0.1:${port}`, child, output: "", dataDir };
  child.stdout.on("data", (chunk: Buffer) => (server.output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (server.output += chunk.toString()));
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server ${name} exited:\n${server.output}`);
    const ready = await fetch(`${server.base}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return server;
    if (Date.now() > deadline) throw new Error(`server ${name} did not start:\n${server.output}`);
    await sleep(100);
  }
}

async function stopServer(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

// Should this test process end without its afterAll (killed, or its runner gone), the servers go with it.
const killServers = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
};
process.once("exit", killServers);
process.once("disconnect", killServers);

beforeAll(async () => {
  for (const file of serverArgs.filter((arg) => !arg.startsWith("--")))
    if (!existsSync(file)) throw new Error(`No build at ${file}: run \`npm run build\` first.`);
  s3 = await startS3rver(BUCKET);
  platform = await startHeldPlatform();
  await createTiers();
  [A, B] = await Promise.all([startServer("A"), startServer("B")]);
});

afterAll(async () => {
  await Promise.all(children.map(stopServer));
  process.off("exit", killServers);
  process.off("disconnect", killServers);
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(`--- A\n${A?.output}\n--- B\n${B?.output}`);
  await platform?.stop();
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

// ------------------------------------------------------------------ requests

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Call = { method?: string; cookie?: string; json?: unknown; body?: FormData; headers?: Record<string, string> };

/**
 * A request to one server as the browser behind the load balancer sends it: a state-changing one
 * carries the site's public origin (APP_URL), which is what each server must accept as its own.
 */
function call(server: AppServer, pathname: string, { method = "GET", cookie, json, body, headers = {} }: Call = {}): Promise<Response> {
  const sent: Record<string, string> = { ...headers };
  if (cookie) sent.Cookie = cookie;
  if (method !== "GET" && method !== "HEAD") sent.Origin = APP_URL;
  let payload: BodyInit | undefined = body;
  if (json !== undefined) {
    sent["Content-Type"] = "application/json";
    payload = JSON.stringify(json);
  }
  return fetch(`${server.base}${pathname}`, { method, headers: sent, body: payload, redirect: "manual" });
}

async function html(server: AppServer, pathname: string, cookie?: string): Promise<string> {
  const response = await call(server, pathname, { cookie });
  expect(response.status, `GET ${pathname} on ${server.name}`).toBe(200);
  return response.text();
}

async function postTitles(server: AppServer, cookie?: string): Promise<string[]> {
  const response = await call(server, "/api/library/posts", { cookie });
  expect(response.status, `GET /api/library/posts on ${server.name}`).toBe(200);
  return ((await response.json()) as { posts: { title: string }[] }).posts.map((post) => post.title);
}

async function bodyBytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A unique word, so a title is found in a page only when that very change is shown. */
function word(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

async function adminCookie(): Promise<string> {
  return sessionCookie((await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true })).id);
}

async function createPanelThrough(server: AppServer, cookie: string, title: string): Promise<string> {
  const created = await call(server, "/api/panels", { method: "POST", cookie, json: { title, link: "https://example.com/two-servers" } });
  expect(created.status).toBe(201);
  return ((await created.json()) as { panel: { _id: string } }).panel._id;
}

async function renamePanelThrough(server: AppServer, cookie: string, id: string, title: string) {
  const updated = await call(server, `/api/panels/${id}`, { method: "PUT", cookie, json: { title, link: "https://example.com/two-servers" } });
  expect(updated.status).toBe(200);
}

async function createPostThrough(server: AppServer, cookie: string, fields: Record<string, unknown>): Promise<string> {
  const created = await call(server, "/api/library/posts", { method: "POST", cookie, json: fields });
  expect(created.status, await created.clone().text()).toBe(201);
  return ((await created.json()) as { post: { postId: string } }).post.postId;
}

// ------------------------------------------------------------------ the checks

describe("two app servers on one database and one bucket", () => {
  it("both answer, each with the load balancer's address as the site's own", async () => {
    for (const server of [A, B]) {
      expect(await (await call(server, "/healthz")).text()).toBe("ok");
      // A state-changing request from the public origin is the site's own on either server (an
      // empty login is refused for its fields, not as cross-site); another origin is refused.
      const own = await call(server, "/api/auth/login", { method: "POST", json: {} });
      expect(own.status).toBe(400);
      const foreign = await fetch(`${server.base}/api/auth/login`, {
        method: "POST",
        headers: { Origin: "https://elsewhere.example", "Content-Type": "application/json" },
        body: "{}",
      });
      expect(foreign.status).toBe(403);
    }
    // Two processes, not one cluster.
    expect(A.child.pid).not.toBe(B.child.pid);
  });

  it("an admin's change through A shows at once on B for signed-in readers: post title, library page, API and home panel", async () => {
    const admin = await adminCookie();
    const reader = await sessionCookie((await createTestUser({ currentTierId: TIER_2, tosAccepted: true })).id);
    const nsfw = (await nsfwCookie.serialize(true)).split(";")[0]!;
    const oldPost = word("Lantern");
    const newPost = word("Chandelier");
    const oldPanel = word("Workshop");
    const newPanel = word("Atelier");
    const postId = await createPostThrough(A, admin, { title: oldPost, paid_content: true, tiers: [TIER_2] });
    const panelId = await createPanelThrough(A, admin, oldPanel);

    // B has read the old state (its kept library, tiers, rendered pages), so anything it kept
    // too long would show below.
    expect(await postTitles(B, reader)).toContain(oldPost);
    expect(await html(B, "/library", `${reader}; ${nsfw}`)).toContain(oldPost);
    expect(await html(B, "/", reader)).toContain(oldPanel);

    const renamed = await call(A, `/api/library/posts/${postId}`, { method: "PUT", cookie: admin, json: { title: newPost } });
    expect(renamed.status).toBe(200);
    await renamePanelThrough(A, admin, panelId, newPanel);
    expect((await db.post.findUniqueOrThrow({ where: { id: postId } })).title).toBe(newPost);
    expect((await db.panel.findUniqueOrThrow({ where: { id: panelId } })).title).toBe(newPanel);

    // The very next requests on B, with no wait.
    const titles = await postTitles(B, reader);
    expect(titles).toContain(newPost);
    expect(titles).not.toContain(oldPost);
    const library = await html(B, "/library", `${reader}; ${nsfw}`);
    expect(library).toContain(newPost);
    expect(library).not.toContain(oldPost);
    const home = await html(B, "/", reader);
    expect(home).toContain(newPanel);
    expect(home).not.toContain(oldPanel);
    // The admin's own view on B, and the API for guests (not a page, so never reused), too.
    expect(await postTitles(B, admin)).toContain(newPost);
    expect(await postTitles(B)).toContain(newPost);
    expect(await postTitles(B)).not.toContain(oldPost);
  });

  it("a change through A shows on the next guest view on both servers, B's kept copy included", async () => {
    const admin = await adminCookie();
    const nsfw = (await nsfwCookie.serialize(true)).split(";")[0]!;
    const oldPanel = word("Harbour");
    const newPanel = word("Lighthouse");
    const oldPost = word("Bookshelf");
    const newPost = word("Wardrobe");
    const panelId = await createPanelThrough(A, admin, oldPanel);
    const postId = await createPostThrough(A, admin, { title: oldPost, paid_content: false });

    for (const [page, cookie, before, after, change] of [
      ["/", undefined, oldPanel, newPanel, () => renamePanelThrough(A, admin, panelId, newPanel)],
      [
        "/library",
        nsfw,
        oldPost,
        newPost,
        async () => expect((await call(A, `/api/library/posts/${postId}`, { method: "PUT", cookie: admin, json: { title: newPost } })).status).toBe(200),
      ],
    ] as const) {
      // B keeps a guest copy of the old page (asked twice, so the second may be its kept copy).
      const guestPage = (server: AppServer) => call(server, page, { headers: cookie ? { Cookie: cookie } : {} });
      expect(await (await guestPage(B)).text()).toContain(before);
      const kept = await guestPage(B);
      expect(kept.headers.get("cache-control")).toContain("public");
      expect(await kept.text()).toContain(before);

      await change();
      // The very next guest requests, on either server, with no wait.
      for (const server of [A, B, B, A, B]) {
        const body = await (await guestPage(server)).text();
        expect(body, `${server.name} ${page}`).toContain(after);
        expect(body, `${server.name} ${page}`).not.toContain(before);
      }
    }
  });

  it("a session holds on both: signed in on A, known on B; signed out on B, refused on A", async () => {
    const user = await createTestUser({ password: "Two-servers-1!" });
    const login = await call(A, "/api/auth/login", { method: "POST", json: { email: user.email, password: "Two-servers-1!" } });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { user: { email: string } }).user.email).toBe(user.email);
    const setCookie = login.headers.getSetCookie().find((cookie) => cookie.startsWith("__session="))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    // APP_URL is https (TLS ends at the load balancer): the cookie is Secure whichever server set it.
    expect(setCookie).toMatch(/;\s*Secure/i);
    const cookie = setCookie.split(";")[0]!;
    expect(await db.session.count({ where: { userId: user.id } })).toBe(1);

    for (const server of [B, A]) {
      const me = await call(server, "/api/auth/user", { cookie });
      expect(me.status, `GET /api/auth/user on ${server.name}`).toBe(200);
      expect(await me.json()).toMatchObject({ id: user.id, email: user.email });
    }

    const logout = await call(B, "/api/auth/logout", { method: "POST", cookie });
    expect(logout.status).toBe(200);
    expect(await logout.json()).toEqual({ message: "Logged out successfully." });
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);

    for (const server of [A, B]) {
      const refused = await call(server, "/api/auth/user", { cookie });
      expect(refused.status, `GET /api/auth/user on ${server.name} after the logout`).toBe(401);
      expect(await refused.json()).toEqual({ error: "Not authenticated" });
    }
  });

  it("failed sign-ins for one email alternating between A and B are counted together: the 11th answers 429 on either", async () => {
    // app/models/passwords.server.ts: 10 per 15 minutes per email.
    const LIMIT = 10;
    const user = await createTestUser({ password: "Right-password-1" });
    const attempt = (server: AppServer, password: string) => call(server, "/api/auth/login", { method: "POST", json: { email: user.email, password } });
    for (let index = 0; index < LIMIT; index++) {
      const server = index % 2 === 0 ? A : B;
      const refused = await attempt(server, `Wrong-password-${index}`);
      expect(refused.status, `attempt ${index + 1} on ${server.name}`).toBe(401);
      expect(await refused.json()).toEqual({ error: "Invalid email or password." });
    }
    // Five on each: a count per server would still let both through.
    for (const server of [A, B]) {
      const limited = await attempt(server, "Wrong-password-x");
      expect(limited.status, `an attempt past the limit on ${server.name}`).toBe(429);
      expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await limited.json()) as { error: string }).error).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
    }
    // Even the right password waits out the window, on both.
    for (const server of [A, B]) expect((await attempt(server, "Right-password-1")).status, `the right password on ${server.name}`).toBe(429);
    const window = await db.rateLimit.findUniqueOrThrow({ where: { key: `login:email:${user.email}` } });
    expect(window.count).toBe(LIMIT + 4);
    expect(window.resetAt.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it("force interval on A and B at the same moment runs the job once; the other caller gets 409, and the lock is free after", async () => {
    const admin = await adminCookie();
    const patron = await createTestUser({ patreonId: SYNC_MEMBER.patreonUserId });
    const runsBefore = await db.jobRun.count({ where: { job: "interval" } });
    platform.hold();
    const answered: { server: string; status: number; at: number }[] = [];
    const force = (server: AppServer) =>
      call(server, "/api/admin/force-interval", { method: "POST", cookie: admin }).then(async (response) => {
        const body = (await response.json()) as Record<string, unknown>;
        answered.push({ server: server.name, status: response.status, at: Date.now() });
        return { server: server.name, status: response.status, body };
      });
    const both = Promise.all([force(A), force(B)]);
    // One run now waits on the platform with the lock held; the other must be refused meanwhile.
    const deadline = Date.now() + 15_000;
    const settled = () => platform.memberRequests.length >= 2 || (answered.length > 0 && platform.memberRequests.length > 0);
    while (!settled() && Date.now() < deadline) await sleep(20);
    const releasedAt = Date.now();
    const runningAtOnce = platform.memberRequests.length;
    platform.release();
    const results = await both;
    expect(runningAtOnce, "sync runs waiting on the platform at the same time").toBe(1);

    const won = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 409);
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(answered.find((answer) => answer.status === 409)!.at).toBeLessThanOrEqual(releasedAt);
    expect(refused[0]!.body).toMatchObject({
      error: "Error forcing interval.",
      details: "The interval job is already running.",
      summary: { status: "skipped", jobRunId: null },
    });
    const summary = won[0]!.body.summary as { status: string; jobRunId: string; members: number; matched: number; tierChanges: number };
    expect(won[0]!.body.message).toBe("Interval job completed.");
    expect(summary).toMatchObject({ status: "succeeded", members: 1, matched: 1, tierChanges: 1 });
    // The database: one run, finished, and its effect.
    expect(platform.memberRequests).toHaveLength(1);
    const runs = await db.jobRun.findMany({ where: { job: "interval" }, orderBy: { startedAt: "asc" } });
    expect(runs).toHaveLength(runsBefore + 1);
    expect(runs.at(-1)).toMatchObject({ id: summary.jobRunId, trigger: "admin", status: "succeeded", error: null });
    expect(runs.at(-1)!.finishedAt).not.toBeNull();
    expect((await db.user.findUniqueOrThrow({ where: { id: patron.id } })).currentTierId).toBe(TIER_3);
    // Both forces are audited, the refused one without a run.
    const audits = await db.auditEntry.findMany({ where: { action: "interval.force" } });
    expect(audits.map((audit) => audit.targetId).sort()).toEqual([summary.jobRunId, null].sort());

    // The winner's lock ended with its run: the loser's server runs it now.
    const again = await force(won[0]!.server === "A" ? B : A);
    expect(again.status).toBe(200);
    expect(await db.jobRun.count({ where: { job: "interval" } })).toBe(runsBefore + 2);
    expect(platform.memberRequests).toHaveLength(2);
  });

  it("a ZIP uploaded through A is in the shared bucket and downloads through B: the same bytes, stamped for the supporter alike on both", async () => {
    const admin = await adminCookie();
    const supporter = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const supporterCookie = await sessionCookie(supporter.id);
    const postId = await createPostThrough(A, admin, { postId: word("zip"), title: word("Cottage"), paid_content: true, tiers: [TIER_2] });
    const zip = makeZip("cottage.zip", [
      { name: "cottage/readme.txt", text: "A cottage for two servers.\n" },
      { name: "cottage/mesh.obj", text: "v 0.5 1 -2\nf 1 2 3\n", repeat: 3000 },
    ]);
    const uploaded = await uploadThrough(A, admin, postId, "cottage.zip", zip);
    expect(uploaded.version).toMatchObject({ size: zip.length, sha256: sha256(zip) });
    const key = uploaded.post.drive_file_id;
    expect(key).toBe(`posts/${postId}/cottage.zip`);

    // The database and the bucket hold it; neither server's own data folder does.
    const post = await db.post.findUniqueOrThrow({ where: { id: postId } });
    expect(post).toMatchObject({ driveFileId: key, fileName: "cottage.zip", fileSize: BigInt(zip.length) });
    expect(await db.postVersion.count({ where: { postId } })).toBe(1);
    expect((await s3.storage.stat(key))?.size).toBe(zip.length);
    const inBucket: Buffer[] = [];
    for await (const chunk of Readable.from(await s3.storage.read(key))) inBucket.push(Buffer.from(chunk as Buffer));
    expect(Buffer.concat(inBucket).equals(zip)).toBe(true);
    for (const server of [A, B]) expect(existsSync(path.join(server.dataDir, "files", key)), `${server.name}'s data folder`).toBe(false);

    // The supporter's download through B: the stored bytes up to the end record, then the end
    // record with their leak-trace stamp (docs/api.md, trace stamp).
    const fromB = await call(B, `/api/download/${postId}`, { cookie: supporterCookie });
    expect(fromB.status).toBe(200);
    // Saved under the post's title and the version served.
    expect(fromB.headers.get("content-disposition")).toContain(`filename="${downloadFileName(post.title, post.version, "cottage.zip")}"`);
    expect(fromB.headers.get("content-disposition")).toMatch(/filename="cottage[a-z0-9-]*-v[0-9.]+\.zip"/);
    const bytesB = await bodyBytes(fromB);
    const endRecord = zip.length - 22; // Python's zipfile wrote no archive comment.
    expect(zip.readUInt32LE(endRecord)).toBe(0x06054b50);
    expect(bytesB.subarray(0, endRecord).equals(zip.subarray(0, endRecord))).toBe(true);
    const stamp = `Leak trace ${supporter.number}-${traceTag(supporter.number)}`;
    expect(bytesB.subarray(endRecord + 22).toString("utf8")).toBe(stamp);
    expect(bytesB.length).toBe(zip.length + Buffer.byteLength(stamp));
    // Through A the same copy, byte for byte, with the same validator: the stamp comes from the shared secret.
    const fromA = await call(A, `/api/download/${postId}`, { cookie: supporterCookie });
    expect(fromA.status).toBe(200);
    expect((await bodyBytes(fromA)).equals(bytesB)).toBe(true);
    expect(fromA.headers.get("etag")).toBe(fromB.headers.get("etag"));
    // One download record: the second, on the other server, fell in the same window.
    const downloads = await db.download.findMany({ where: { userId: supporter.id, postId } });
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.versionId).toBe(uploaded.version.id);
  });

  it("a free file uploaded through A comes byte for byte from B through the address A signed", async () => {
    const admin = await adminCookie();
    const postId = await createPostThrough(A, admin, { title: word("Garden"), paid_content: false });
    const zip = makeZip("garden.zip", [{ name: "garden/plants.txt", text: "fern, moss, ivy\n", repeat: 500 }], {
      deflate: true,
      comment: "Packed by the creator",
    });
    await uploadThrough(A, admin, postId, "garden.zip", zip);

    const signed = await call(A, `/api/download/freedownload/${postId}`);
    expect(signed.status).toBe(200);
    const url = new URL(((await signed.json()) as { downloadUrl: string }).downloadUrl);
    expect(url.origin).toBe(APP_URL);
    // The load balancer may send the click to B.
    const file = await call(B, `${url.pathname}${url.search}`);
    expect(file.status).toBe(200);
    expect((await bodyBytes(file)).equals(zip)).toBe(true);
    expect(file.headers.get("etag")).toBe((await s3.storage.stat(`posts/${postId}/garden.zip`))!.etag);
    // A guest's download through the API on B is the stored file too (no stamp without an account).
    const guest = await call(B, `/api/download/${postId}`);
    expect(guest.status).toBe(200);
    expect((await bodyBytes(guest)).equals(zip)).toBe(true);
  });

  // Fails on the current build (found by this file, not a two-server matter): server/app.ts runs
  // compression() over every answer, and the `compression` package counts application/octet-stream
  // as compressible, so a browser's download is re-encoded (Brotli) on the fly: no Content-Length
  // (docs/api.md promises it), the stored file's strong ETag on other bytes, and a 206 whose body is
  // Brotli of the range while Content-Range counts the file's own bytes.
  it("a download goes to a browser as stored, even when it accepts compressed answers: Content-Length, no Content-Encoding, ranges too", async () => {
    const admin = await adminCookie();
    const postId = await createPostThrough(A, admin, { title: word("Meadow"), paid_content: false });
    const zip = makeZip("meadow.zip", [{ name: "meadow/grass.txt", text: "blade of grass\n", repeat: 2000 }]);
    await uploadThrough(A, admin, postId, "meadow.zip", zip);
    const browser = { "Accept-Encoding": "gzip, deflate, br, zstd" };

    const whole = await call(B, `/api/download/${postId}`, { headers: browser });
    expect(whole.status).toBe(200);
    expect((await bodyBytes(whole)).equals(zip)).toBe(true);
    expect(whole.headers.get("content-encoding")).toBeNull();
    expect(whole.headers.get("content-length")).toBe(String(zip.length));

    const part = await call(B, `/api/download/${postId}`, { headers: { ...browser, Range: "bytes=100-5099" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-5099/${zip.length}`);
    expect(part.headers.get("content-encoding")).toBeNull();
    expect(part.headers.get("content-length")).toBe("5000");
    expect((await bodyBytes(part)).equals(zip.subarray(100, 5100))).toBe(true);
  });
});

/** A ZIP written by Python's zipfile (tests/zip-files.ts) into the scratch folder, as bytes. */
function makeZip(name: string, files: Parameters<typeof writeZip>[1], options?: Parameters<typeof writeZip>[2]): Buffer {
  const file = path.join(scratch, name);
  writeZip(file, files, options);
  return readFileSync(file);
}

type Uploaded = { post: { drive_file_id: string }; version: { id: string; size: number; sha256: string } };

/** An admin's upload of `bytes` as the post's file (multipart `file`) through one server. */
async function uploadThrough(server: AppServer, cookie: string, postId: string, fileName: string, bytes: Buffer): Promise<Uploaded> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/zip" }), fileName);
  const upload = await call(server, `/api/upload/file/${postId}`, { method: "POST", cookie, body: form });
  expect(upload.status, await upload.clone().text()).toBe(200);
  return (await upload.json()) as Uploaded;
}
