// The README's first command as a newcomer runs it: scripts/start.ts (what `npm start` runs) on a
// fresh DATA_DIR with no DATABASE_URL, so on the embedded PostgreSQL; then `npm start` itself in a
// copy of the whole project inside a private (0700) folder, as root and as an ordinary user; then
// the same walk with DATABASE_URL going through PgBouncer in transaction mode. Every page as a guest
// and as each demo account of the README, a burst of parallel requests, an owned file
// downloaded; zero 5xx and no error line in the server's output. Then restarts, a second start
// on the same data, a Ctrl-C in the middle of a request, and a database that cannot start.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAppBuilt, freePort, projectRoot } from "../scripts/app-server.ts";
import { copyProject } from "../scripts/project-copy.ts";
import { DEMO_ADMIN, DEMO_FAN, DEMO_SUPPORTER } from "../prisma/demo-content";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";
import { startPgbouncer, type Pooler } from "./pgbouncer";

const READY = "Creator Library is running at";
const START_TIMEOUT_MS = 120_000;

type Site = { base: string; child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** Only what a newcomer's shell would have: no test database, secret or NODE_ENV of this run. */
function newcomerEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  const { PATH, HOME, LANG, TMPDIR, REMIX_BUILD_DIR } = process.env;
  return { PATH, HOME, LANG, TMPDIR, REMIX_BUILD_DIR, REQUEST_LOG: "true", ...extra };
}

/** Where and as whom a start runs: by default scripts/start.ts of this checkout, as this process. */
type Launch = { cwd?: string; command?: [string, string[]]; user?: { uid: number; gid: number } };

/** Runs `npm start` (scripts/start.ts) in a process group of its own, as a terminal would. */
function launch(env: Record<string, string | undefined>, how: Launch = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const [program, args] = how.command ?? [process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts/start.ts")]];
  const child = spawn(program, args, {
    cwd: how.cwd ?? projectRoot,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...how.user,
  });
  let text = "";
  child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function startSite(env: Record<string, string | undefined>, how?: Launch): Promise<Site> {
  const port = Number(env.PORT);
  const launched = launch(env, how);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!launched.output().includes(READY)) {
    if (launched.child.exitCode !== null) throw new Error(`npm start exited (${launched.child.exitCode}):\n${launched.output()}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready in time:\n${launched.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base: `http://127.0.0.1:${port}`, ...launched };
}

/** Ctrl-C in the terminal: SIGINT to the whole process group. */
function pressCtrlC(site: Pick<Site, "child">) {
  process.kill(-site.child.pid!, "SIGINT");
}

function killGroup(site: Pick<Site, "child"> | undefined) {
  if (site?.child.exitCode === null) {
    try {
      process.kill(-site.child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Lines of the server's output that report a failure. */
function errorLines(output: string): string[] {
  return output.split("\n").filter((line) => /error|exception|fatal|unhandled|\s5\d\d\s/i.test(line));
}

type Account = { email: string; password: string; admin?: boolean };
const ACCOUNTS: Account[] = [{ ...DEMO_ADMIN, admin: true }, DEMO_SUPPORTER, DEMO_FAN];

const GUEST_PAGES = [
  "/",
  "/library",
  "/library?filter=free",
  "/infos",
  "/inspiration-vote",
  "/login",
  "/forgot-password",
  "/admin",
  "/healthz",
  "/api/library/posts",
  "/api/library/tiers",
  "/api/panels",
  "/api/inspiration/panels",
  "/api/inspiration/config",
  "/api/auth/user",
];
const ACCOUNT_PAGES = [...GUEST_PAGES, "/login?callback=" + encodeURIComponent("http://127.0.0.1/x")];
const ADMIN_PAGES = ["/api/admin/users", "/api/admin/posts"];

/** Signs the account in with its password, as the login form's API does. */
function signIn(base: string, account: Account): Promise<Response> {
  return fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
}

type LibraryPost = { postId: string; paid_content: boolean; unlocked: boolean; fileName: string | null };

/** Walks the site as a guest and as every demo account; answers each 5xx seen. */
async function walk(base: string): Promise<string[]> {
  const failures: string[] = [];
  const get = async (pathname: string, cookie?: string) => {
    const response = await fetch(base + pathname, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
    if (response.status >= 500) failures.push(`${response.status} GET ${pathname}${cookie ? " (signed in)" : ""}`);
    return response;
  };
  for (const page of GUEST_PAGES) await (await get(page)).arrayBuffer();

  for (const account of ACCOUNTS) {
    const login = await signIn(base, account);
    expect(login.status, `sign-in of ${account.email}`).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;

    for (const page of [...ACCOUNT_PAGES, ...(account.admin ? ADMIN_PAGES : [])]) {
      const response = await get(page, cookie);
      await response.arrayBuffer();
      if (page === "/admin") expect(response.status, `/admin as ${account.email}`).toBe(account.admin ? 200 : 302);
      if (page === "/api/auth/user") expect(response.status).toBe(200);
    }
    // A burst of parallel requests, as a browser opening several tabs.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        get(["/library", "/api/library/posts", "/api/auth/user", "/"][index % 4]!, cookie).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    expect(burst.every((status) => status === 200)).toBe(true);

    // An owned file, downloaded (after the terms, as the library's popup asks): a paid post the
    // account may download, else a free one.
    const { user } = (await login.json()) as { user: { _id: string } };
    const terms = await fetch(`${base}/api/library/accept-tos/${user._id}`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ tosAccepted: true }),
    });
    expect(terms.status).toBe(200);
    const listing = (await (await get("/api/library/posts", cookie)).json()) as LibraryPost[] | { posts: LibraryPost[] };
    const posts = Array.isArray(listing) ? listing : listing.posts;
    const owned = posts.filter((post) => post.unlocked && post.fileName);
    const paid = owned.find((post) => post.paid_content);
    if (!account.admin && account !== DEMO_FAN) expect(paid, `${account.email} owns a paid post`).toBeDefined();
    let file: Response;
    if (paid) {
      file = await get(`/api/download/${paid.postId}`, cookie);
    } else {
      const free = owned.find((post) => !post.paid_content)!;
      const link = await get(`/api/download/freedownload/${free.postId}`, cookie);
      expect(link.status).toBe(200);
      const { downloadUrl } = (await link.json()) as { downloadUrl: string };
      file = await get(new URL(downloadUrl, base).pathname + new URL(downloadUrl, base).search, cookie);
    }
    expect(file.status, `download as ${account.email}`).toBe(200);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(0);
    if (file.headers.has("content-length")) expect(bytes.length).toBe(Number(file.headers.get("content-length")));
  }
  return failures;
}

async function postCount(base: string): Promise<number> {
  const login = await signIn(base, DEMO_ADMIN);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const listing = (await (await fetch(`${base}/api/library/posts`, { headers: { Cookie: cookie } })).json()) as unknown[] | { posts: unknown[] };
  return (Array.isArray(listing) ? listing : listing.posts).length;
}

beforeAll(() => ensureAppBuilt(), START_TIMEOUT_MS);

describe("npm start on the embedded default", () => {
  // A private folder (mkdtemp's 0700), as a newcomer's fresh data folder may be: under root the
  // database's OS user must still get through it.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-first-run-"));
  let site: Site | undefined;
  let firstCount = 0;
  let port = 0;
  afterAll(async () => {
    killGroup(site);
    await site?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    "starts on a fresh DATA_DIR and serves every page to guests and every demo account without a 5xx",
    async () => {
      port = await freePort();
      site = await startSite(newcomerEnv({ DATA_DIR: dataDir, PORT: String(port) }));
      expect(site.output()).toContain("Embedded PostgreSQL in");
      expect(site.output()).toContain("Demo content seeded.");
      expect(existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(true);
      expect(await walk(site.base)).toEqual([]);
      firstCount = await postCount(site.base);
      expect(firstCount).toBeGreaterThan(20);

      // A newcomer signs up: with no mail server the code is written to DATA_DIR/mail.
      const signUp = await fetch(`${site.base}/api/auth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "newcomer@example.com", password: "Newcomer1234!" }),
      });
      expect(signUp.status).toBe(201);
      const mailFolder = path.join(dataDir, "mail");
      const mails = readdirSync(mailFolder)
        .filter((file) => file.endsWith(".txt"))
        .map((file) => readFileSync(path.join(mailFolder, file), "utf8"));
      expect(mails.some((mail) => mail.startsWith("To: newcomer@example.com"))).toBe(true);
      expect(errorLines(site.output())).toEqual([]);
    },
    START_TIMEOUT_MS,
  );

  it(
    "refuses a second start on the same DATA_DIR with a clear message, and the first keeps working",
    async () => {
      const second = launch(newcomerEnv({ DATA_DIR: dataDir, PORT: String(await freePort()) }));
      try {
        expect(await second.exited).toBe(1);
        expect(second.output()).toMatch(/is in use by another running npm start \(its PostgreSQL has PID \d+\)/);
        expect(second.output()).toContain("set DATABASE_URL");
        expect((await fetch(`${site!.base}/healthz`)).status).toBe(200);
      } finally {
        // Should it have started after all (the first did not), it must not outlive the test.
        killGroup(second);
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    "stops on Ctrl-C: the app first, then the database, leaving no server behind",
    async () => {
      pressCtrlC(site!);
      expect(await site!.exited).toBe(0);
      expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
      expect(errorLines(site!.output())).toEqual([]);
    },
    START_TIMEOUT_MS,
  );

  it(
    "starts again on the same data: nothing seeded twice, accounts still sign in, an old PGlite folder is pointed out",
    async () => {
      mkdirSync(path.join(dataDir, "pglite"));
      site = await startSite(newcomerEnv({ DATA_DIR: dataDir, PORT: String(port) }));
      expect(site.output()).not.toContain("Demo content seeded.");
      expect(site.output()).toMatch(/pglite is the database of an earlier version \(PGlite\) and is no longer read/);
      for (const account of ACCOUNTS) expect((await signIn(site.base, account)).status, `sign-in of ${account.email}`).toBe(200);
      expect(await postCount(site.base)).toBe(firstCount);
      expect(errorLines(site.output())).toEqual([]);
    },
    START_TIMEOUT_MS,
  );

  it(
    "finishes a request in flight on Ctrl-C before the database stops, and keeps what it wrote",
    async () => {
      const body = JSON.stringify({ email: DEMO_FAN.email, password: DEMO_FAN.password });
      const answered = new Promise<{ status: number; cookie: string }>((resolve, reject) => {
        const request = http.request(`${site!.base}/api/auth/login`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        });
        request.on("response", (response) => {
          response.resume();
          resolve({ status: response.statusCode!, cookie: String(response.headers["set-cookie"]?.[0] ?? "").split(";")[0]! });
        });
        request.on("error", reject);
        // Half the body now; the rest after Ctrl-C has reached every process of the group.
        request.write(body.slice(0, 10));
        setTimeout(() => {
          pressCtrlC(site!);
          setTimeout(() => request.end(body.slice(10)), 500);
        }, 300);
      });
      const { status, cookie } = await answered;
      expect(status).toBe(200);
      expect(await site!.exited).toBe(0);

      // The session it created was committed: it still signs the fan in after a restart.
      site = await startSite(newcomerEnv({ DATA_DIR: dataDir, PORT: String(port) }));
      const user = await fetch(`${site.base}/api/auth/user`, { headers: { Cookie: cookie } });
      expect(user.status).toBe(200);
      pressCtrlC(site);
      expect(await site.exited).toBe(0);
      expect(errorLines(site.output())).toEqual([]);
    },
    START_TIMEOUT_MS,
  );

  it(
    "stops with one clear message when the embedded database cannot start",
    async () => {
      const broken = mkdtempSync(path.join(os.tmpdir(), "clib-broken-"));
      try {
        // A file where the database folder belongs.
        writeFileSync(path.join(broken, "postgres"), "not a folder");
        const run = launch(newcomerEnv({ DATA_DIR: broken, PORT: String(await freePort()) }));
        expect(await run.exited).toBe(1);
        const lines = run.output().trim().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^Could not start the embedded PostgreSQL: .*postgres is not a folder.*set DATABASE_URL\.$/);
      } finally {
        rmSync(broken, { recursive: true, force: true });
      }
    },
    START_TIMEOUT_MS,
  );
});

/**
 * Ctrl-C on `npm start`: npm itself ends on the signal (no exit code) while scripts/start.ts
 * stops the app and then the database; done when the database's pid file is gone.
 */
async function stopNpmStart(site: Site, project: string): Promise<void> {
  pressCtrlC(site);
  expect([0, null]).toContain(await site.exited);
  const pidFile = path.join(project, "data", "postgres", "postmaster.pid");
  for (let waited = 0; existsSync(pidFile) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(existsSync(pidFile)).toBe(false);
  expect(errorLines(site.output())).toEqual([]);
}

/** An ordinary OS user for the newcomer who is not root: `nobody`, present on every Debian-like system. */
function ordinaryUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync("id", [flag, "nobody"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

// The whole project (its installed packages included) in a 0700 folder, started with `npm start`
// from there, as a clone under /root is: as root (the database's OS user must still reach the
// PostgreSQL binaries inside it) and, when the tests run as root, as an ordinary user who owns it.
const runners = process.getuid?.() === 0 ? (["root", "an ordinary user"] as const) : (["this user"] as const);
describe.each(runners)("npm start in a copy of the project in a private folder, as %s", (runner) => {
  const privateFolder = mkdtempSync(path.join(os.tmpdir(), "clib-private-project-"));
  const project = path.join(privateFolder, "app");
  const home = path.join(privateFolder, "home");
  const user = runner === "an ordinary user" ? ordinaryUser() : undefined;
  let site: Site | undefined;
  afterAll(async () => {
    killGroup(site);
    await site?.exited;
    rmSync(privateFolder, { recursive: true, force: true });
  });

  it(
    "builds, starts on the embedded database and serves every page to guests and every demo account",
    async () => {
      copyProject(project, user);
      mkdirSync(home);
      if (user) {
        chownSync(privateFolder, user.uid, user.gid);
        chownSync(home, user.uid, user.gid);
      }
      expect(statSync(privateFolder).mode & 0o777).toBe(0o700);
      const port = await freePort();
      const npm = process.env.npm_execpath;
      const command: [string, string[]] = npm ? [process.execPath, [npm, "start"]] : ["npm", ["start"]];
      const env = newcomerEnv({ PORT: String(port), HOME: home, REMIX_BUILD_DIR: undefined });
      site = await startSite(env, { cwd: project, command, user });
      expect(site.output()).toContain("Building the app into build/");
      expect(site.output()).toContain("Demo content seeded.");
      expect(existsSync(path.join(project, "data", "postgres", "PG_VERSION"))).toBe(true);
      expect(await walk(site.base)).toEqual([]);
      expect(errorLines(site.output())).toEqual([]);

      // A restart with unchanged sources neither builds nor migrates again.
      await stopNpmStart(site, project);
      site = await startSite(env, { cwd: project, command, user });
      expect(site.output()).not.toContain("Building the app");
      expect(site.output()).toContain("Database is up to date.");
      expect((await fetch(`${site.base}/library`)).status).toBe(200);

      // A second start on the same data is refused before it builds anything.
      writeFileSync(path.join(project, "app", "touched.ts"), "export {};\n");
      const second = launch({ ...env, PORT: String(await freePort()) }, { cwd: project, command, user });
      try {
        expect(await second.exited).toBe(1);
        expect(second.output()).toMatch(/is in use by another running npm start/);
        expect(second.output()).not.toContain("Building the app");
      } finally {
        killGroup(second);
      }
      await stopNpmStart(site, project);
    },
    4 * START_TIMEOUT_MS,
  );
});

describe("npm start with DATABASE_URL through PgBouncer in transaction mode", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-pooled-run-"));
  const database = uniqueName("clib_pooled");
  let pooler: Pooler | undefined;
  let site: Site | undefined;
  afterAll(async () => {
    killGroup(site);
    await site?.exited;
    await pooler?.stop();
    await dropDatabase(database);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    "migrates over the direct URL, then serves every page and account through the pooler without a 5xx",
    async () => {
      pooler = await startPgbouncer();
      await adminQuery(`CREATE DATABASE "${database}"`);
      const port = await freePort();
      site = await startSite(
        newcomerEnv({
          DATA_DIR: dataDir,
          PORT: String(port),
          DATABASE_URL: pooler.url(database),
          DIRECT_DATABASE_URL: databaseUrl(database),
          SESSION_SECRET: "pooled-first-run-secret-0123456789abcdef",
          APP_URL: `http://127.0.0.1:${port}`,
        }),
      );
      expect(site.output()).toContain("Demo content seeded.");
      expect(site.output()).not.toContain("LOCAL DEMO");
      expect(await walk(site.base)).toEqual([]);
      pressCtrlC(site);
      expect(await site.exited).toBe(0);
      expect(errorLines(site.output())).toEqual([]);
    },
    START_TIMEOUT_MS,
  );
});
