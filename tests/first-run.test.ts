// The README's first command as a newcomer runs it: scripts/start.ts (what `npm start` runs) on a
// fresh DATA_DIR with no DATABASE_URL, so on the embedded PostgreSQL; then the same walk with
// DATABASE_URL going through PgBouncer in transaction mode. Every page as a guest and as each demo
// account of the README, a burst of parallel requests, an owned file downloaded; zero 5xx and no
// error line in the server's output. Then restarts, a second start on the same data, `npm run dev`
// once on that data, a Ctrl-C in the middle of a request, and a database that cannot start.
// `npm start` itself in a fresh copy of the project, as root and as an ordinary user, is
// tests/first-run-copy.test.ts and tests/first-run-copy-user.test.ts (files of their own, so
// that they run beside this one).
import { existsSync, mkdirSync, readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAppBuilt, freePort } from "../scripts/app-server.ts";
import { DEMO_FAN } from "../prisma/demo-content";
import { adminQuery, databaseUrl, dropDatabase, uniqueName } from "./db";
import { ACCOUNTS, errorLines, killGroup, launch, newcomerEnv, postCount, pressCtrlC, signIn, startSite, START_TIMEOUT_MS, walk, type Site } from "./npm-start";
import { startPgbouncer, type Pooler } from "./pgbouncer";

beforeAll(() => ensureAppBuilt(), START_TIMEOUT_MS);

/** The environments of the app server processes (build/server.js) that serve `port`. */
function appServerEnvironments(port: number): string[][] {
  const found: string[][] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("server.js")) continue;
      const environment = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (environment.includes(`PORT=${port}`)) found.push(environment);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

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

      // The app server's processes (the primary and its workers) run with two malloc arenas.
      const servers = appServerEnvironments(port);
      expect(servers.length).toBeGreaterThanOrEqual(2);
      for (const environment of servers) expect(environment).toContain("MALLOC_ARENA_MAX=2");
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
    "npm run dev serves the home page from the sources through Vite, on the same data, and stops on Ctrl-C",
    async () => {
      const npm = process.env.npm_execpath;
      const command: [string, string[]] = npm ? [process.execPath, [npm, "run", "dev"]] : ["npm", ["run", "dev"]];
      const dev = await startSite(newcomerEnv({ DATA_DIR: dataDir, PORT: String(port) }), { command });
      try {
        expect(dev.output()).toContain("development: edits to app/ show at once");
        expect(dev.output()).not.toContain("Building the app");
        const home = await fetch(`${dev.base}/`);
        expect(home.status).toBe(200);
        const html = await home.text();
        expect(html).toContain("<title>Home · Creator Library</title>");
        // The page's scripts are the sources as Vite serves them, not a build.
        expect(html).toContain("/app/entry.client.tsx");
        expect((await fetch(`${dev.base}/@vite/client`)).status).toBe(200);
        pressCtrlC(dev);
        expect(await dev.exited).toBe(0);
        expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
        expect(errorLines(dev.output())).toEqual([]);
        // Nothing a newcomer could take for a fault: a dependency's incomplete source map is not one.
        expect(dev.output()).not.toContain("points to missing source files");
      } finally {
        killGroup(dev);
      }
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
      // Signed in first (a busy machine may answer a password check 503 + Retry-After: signIn
      // retries), so the write in flight is not a password check racing its time budget.
      const signedIn = await signIn(site!.base, DEMO_FAN);
      expect(signedIn.status).toBe(200);
      const cookie = String(signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
      const body = JSON.stringify({ username: "Fan in flight" });
      const answered = new Promise<number>((resolve, reject) => {
        const request = http.request(`${site!.base}/api/auth/update-username`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Cookie: cookie },
        });
        request.on("response", (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on("error", reject);
        // Half the body now; the rest after Ctrl-C has reached every process of the group.
        request.write(body.slice(0, 10));
        setTimeout(() => {
          pressCtrlC(site!);
          setTimeout(() => request.end(body.slice(10)), 500);
        }, 300);
      });
      expect(await answered).toBe(200);
      expect(await site!.exited).toBe(0);

      // What it wrote was committed: after a restart the account has the new name.
      site = await startSite(newcomerEnv({ DATA_DIR: dataDir, PORT: String(port) }));
      const user = await fetch(`${site.base}/api/auth/user`, { headers: { Cookie: cookie } });
      expect(user.status).toBe(200);
      expect(JSON.stringify(await user.json())).toContain("Fan in flight");
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
