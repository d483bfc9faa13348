// Mixed load: 200 concurrent clients for 60 s against the production server with the demo
// content, each cycling through the home page, the library, the inspiration vote, an email
// login and a download. Prints throughput, p50/p99 latency, status counts (429 from the login
// rate limit counted apart: they are not failures), and the server's RSS over the run.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMigratedDatabase, dropDatabase, uniqueName } from "../tests/db.ts";
import { percentile } from "./child.ts";
import { rssMb, type TargetLine } from "./library.ts";
import { appServerArgs, appServerEnv, ensureAppBuilt, freePort, waitForHealth } from "../scripts/app-server.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 200);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const FILE_BYTES = 256 * 1024;
const LOGIN = { email: "load@example.com", password: "LoadTest1234!" };

export type SeededApp = {
  base: string;
  cookie: string;
  /** A session of the demo supporter (Tier 2). */
  supporterCookie: string;
  /** Sessions of `readers` more supporters of the demo supporter's tier, one each. */
  readerCookies: string[];
  freePostId: string;
  /** What the `extraSeed` module's `seedExtra` answered (undefined without one). */
  extra?: unknown;
  /** The app's database and DATA_DIR (local storage in `files/`), for a benchmark's own checks. */
  databaseUrl: string;
  dataDir: string;
  pid: number;
  serverLog: { slowQueries: number; tail: string };
  /**
   * Another app server on the same database and files, from another build folder (built
   * already, e.g. the code before a change): a before/after taken side by side in one run.
   */
  startBeside: (buildDir: string) => Promise<{ base: string; pid: number; stop: () => Promise<void> }>;
  stop: () => Promise<void>;
};

/**
 * Stops an app server (SIGTERM, then SIGKILL after 12 s). Its workers are killed too when it had
 * to be: a worker still draining a response (the drain may take SHUTDOWN_DRAIN_SECONDS) would
 * otherwise outlive the benchmark.
 */
async function stopServer(server: ChildProcess | undefined): Promise<void> {
  if (server && server.exitCode === null) {
    const workers = spawnSync("pgrep", ["-P", String(server.pid)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map(Number);
    server.kill("SIGTERM");
    await Promise.race([once(server, "exit"), new Promise((resolve) => setTimeout(resolve, 12_000))]);
    if (server.exitCode === null) {
      server.kill("SIGKILL");
      for (const pid of workers) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }
  }
}

/** What an `extraSeed` module's `seedExtra` gets, in the seeding child after the demo content. */
export type ExtraSeedContext = {
  db: (typeof import("../app/db.server.ts"))["db"];
  store: Awaited<ReturnType<(typeof import("../app/integrations/storage.server.ts"))["storage"]>>;
  /** The demo supporter's tier (Tier 2). */
  supporterTierId: string | null;
};

/**
 * A fresh database with the demo content, a user with a session, a free post with a 256 KiB
 * file, and the built app on server/index.ts. Seeding runs in a child process: the database
 * client of this process may already belong to another benchmark's database. `extraSeed` names
 * a module whose `seedExtra(context: ExtraSeedContext)` seeds more there; its JSON answer is `extra`.
 */
export async function startSeededApp({
  extraPosts = 0,
  workers = 1,
  clientIpHeader,
  readers = 0,
  extraSeed,
}: { extraPosts?: number; workers?: number; clientIpHeader?: string; readers?: number; extraSeed?: string } = {}): Promise<SeededApp> {
  const buildDir = process.env.REMIX_BUILD_DIR ?? "build";
  ensureAppBuilt(buildDir);
  const databaseName = uniqueName("clib_load");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-load-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const databaseUrl = await createMigratedDatabase(databaseName);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SESSION_SECRET: "bench-session-secret-bench-session-secret",
    APP_URL: base,
    PORT: String(port),
    HOST: "127.0.0.1",
    DISABLE_JOBS: "1",
    // One app process by default, so the RSS figures are per worker; production runs one per core.
    WEB_CONCURRENCY: String(workers),
    STORAGE_DRIVER: "local",
    REQUEST_LOG: "false",
    BENCH_EXTRA_POSTS: String(extraPosts),
    BENCH_READERS: String(readers),
    BENCH_EXTRA_SEED: extraSeed ?? "",
    // Lets a benchmark speak for many clients (each its own per-address rate limit).
    ...(clientIpHeader ? { CLIENT_IP_HEADER: clientIpHeader } : {}),
  };
  let server: ChildProcess | undefined;
  const besides: ChildProcess[] = [];
  const serverLog = { slowQueries: 0, tail: "" };
  const startBeside = async (otherBuildDir: string) => {
    const besidePort = await freePort();
    const besideBase = `http://127.0.0.1:${besidePort}`;
    const child = spawn(process.execPath, appServerArgs(otherBuildDir), {
      cwd: root,
      env: appServerEnv({ ...env, PORT: String(besidePort), APP_URL: besideBase, REMIX_BUILD_DIR: otherBuildDir }),
      stdio: ["ignore", "ignore", "ignore"],
    });
    besides.push(child);
    await waitForHealth(`${besideBase}/healthz`, child);
    return { base: besideBase, pid: child.pid!, stop: () => stopServer(child) };
  };
  const stop = async () => {
    await Promise.all([server, ...besides].map(stopServer));
    await dropDatabase(databaseName).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const seeded = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--seed"], {
      cwd: root,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);
    const { cookie, supporterCookie, readerCookies, freePostId, extra } = JSON.parse(seeded.stdout.trim().split("\n").pop()!) as Pick<
      SeededApp,
      "cookie" | "supporterCookie" | "readerCookies" | "freePostId" | "extra"
    >;
    // BENCH_PROFILE=<dir>: a CPU profile of the app server, written when it stops.
    const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : [];
    const child = spawn(process.execPath, [...profile, ...appServerArgs(buildDir)], { cwd: root, env: appServerEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    server = child;
    // Under this load the app warns about slow queries in its log (stdout, JSON; REQUEST_LOG is off): count them, keep the tail.
    const read = (chunk: Buffer) => {
      const text = chunk.toString();
      serverLog.slowQueries += text.split("slow query").length - 1;
      serverLog.tail = (serverLog.tail + text).slice(-2000);
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    await waitForHealth(`${base}/healthz`, child);
    return { base, cookie, supporterCookie, readerCookies, freePostId, extra, databaseUrl, dataDir, pid: child.pid!, serverLog, startBeside, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Child-process half of startSeededApp: writes the data and prints {cookie, supporterCookie, readerCookies, freePostId, extra}. */
async function seed() {
  const { db } = await import("../app/db.server.ts");
  const { storage } = await import("../app/integrations/storage.server.ts");
  const { seedDemoContent } = await import("../prisma/demo-content.ts");
  const { createUserSession } = await import("../app/models/session.server.ts");
  const { hashPassword } = await import("../app/models/passwords.server.ts");
  const store = await storage();
  await seedDemoContent(db, store);
  const user = await db.user.create({
    data: { email: LOGIN.email, fullName: "Load Test", passwordHash: await hashPassword(LOGIN.password), mailVerified: true, tosAccepted: true },
  });
  const key = "posts/load/free-file.package";
  await store.put(key, Buffer.alloc(FILE_BYTES, 0x41));
  const post = await db.post.create({
    data: {
      id: "399999",
      title: "Load test free post",
      paidContent: false,
      driveFileId: key,
      fileName: "free-file.package",
      fileSize: BigInt(FILE_BYTES),
      orderDate: new Date(0),
    },
  });
  // Optional bulk of posts (with the demo images) to see the library page at catalogue size.
  const extra = Number(process.env.BENCH_EXTRA_POSTS ?? 0);
  if (extra > 0) {
    const images = (await db.post.findMany({ where: { imageKey: { not: null } }, select: { imageKey: true } })).map((row) => row.imageKey);
    const now = Date.now();
    await db.post.createMany({
      data: Array.from({ length: extra }, (_, index) => ({
        id: String(500000 + index),
        title: `Catalogue post ${index}`,
        imageKey: images[index % Math.max(images.length, 1)] ?? null,
        paidContent: index % 3 !== 0,
        driveFileId: key,
        fileName: "free-file.package",
        fileSize: BigInt(FILE_BYTES),
        firstPublishedAt: new Date(now - (index + 30) * 3_600_000),
        publishedAt: new Date(now - (index + 30) * 3_600_000),
        orderDate: new Date(now - (index + 30) * 3_600_000),
      })),
    });
  }
  const cookie = (await createUserSession(user.id)).split(";")[0]!;
  const { DEMO_SUPPORTER } = await import("../prisma/demo-content.ts");
  const supporter = await db.user.findUniqueOrThrow({ where: { email: DEMO_SUPPORTER.email } });
  const supporterCookie = (await createUserSession(supporter.id)).split(";")[0]!;
  const readerCookies: string[] = [];
  for (let index = 0; index < Number(process.env.BENCH_READERS ?? 0); index++) {
    const reader = await db.user.create({
      data: {
        email: `reader-${index}@example.com`,
        fullName: `Reader ${index}`,
        mailVerified: true,
        tosAccepted: true,
        currentTierId: supporter.currentTierId,
      },
    });
    readerCookies.push((await createUserSession(reader.id)).split(";")[0]!);
  }
  let seededExtra: unknown;
  if (process.env.BENCH_EXTRA_SEED) {
    const { seedExtra } = (await import(pathToFileURL(process.env.BENCH_EXTRA_SEED).href)) as { seedExtra: (context: ExtraSeedContext) => Promise<unknown> };
    seededExtra = await seedExtra({ db, store, supporterTierId: supporter.currentTierId });
  }
  await db.$disconnect();
  console.log(JSON.stringify({ cookie, supporterCookie, readerCookies, freePostId: post.id, extra: seededExtra }));
}

type AutocannonResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  throughput: { average: number };
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
};
type AutocannonRequest = { method?: string; path: string; headers?: Record<string, string>; body?: string };
/** The run: a promise of the result that also reports each response as it comes. */
type AutocannonRun = Promise<AutocannonResult> & {
  on(
    event: "response",
    listener: (client: { requestIterator?: { currentRequest?: AutocannonRequest } }, statusCode: number, bytes: number, milliseconds: number) => void,
  ): void;
};
type Autocannon = (options: { url: string; connections: number; duration: number; timeout?: number; requests: AutocannonRequest[] }) => AutocannonRun;

/** The p99 target for page views (not sign-ins or downloads) under the mixed load (docs/benchmarks.md). */
const PAGE_VIEW_P99_TARGET_MS = 1_000;

export async function runLoadBenchmark(): Promise<TargetLine[]> {
  console.log(`\nMixed load: ${CONNECTIONS} connections for ${SECONDS} s (home, library, inspiration vote, login, ${FILE_BYTES / 1024} KiB download)`);
  const app = await startSeededApp();
  try {
    const { default: autocannon } = (await import("autocannon")) as { default: Autocannon };
    const requests: AutocannonRequest[] = [
      { path: "/" },
      { path: "/library", headers: { Cookie: app.cookie } },
      { path: "/inspiration-vote" },
      { method: "POST", path: "/api/auth/login", headers: { "Content-Type": "application/json", Origin: app.base }, body: JSON.stringify(LOGIN) },
      { path: `/api/download/${app.freePostId}`, headers: { Cookie: app.cookie } },
    ];
    // Warm-up (JIT, pool), not measured.
    await autocannon({ url: app.base, connections: 20, duration: 3, requests });
    const startRss = rssMb(app.pid, "VmRSS");
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb(app.pid, "VmRSS")), 5_000);
    // Page views' own latencies: a client sends its requests one at a time, so when a response
    // arrives its request iterator still points at the request answered.
    const pagePaths = new Set(
      requests.filter((request) => (request.method ?? "GET") === "GET" && !request.path.startsWith("/api/")).map((request) => request.path),
    );
    const pageViewMs: number[] = [];
    let result: AutocannonResult;
    try {
      const run = autocannon({ url: app.base, connections: CONNECTIONS, duration: SECONDS, timeout: 30, requests });
      run.on("response", (client, _status, _bytes, milliseconds) => {
        const answered = client.requestIterator?.currentRequest;
        if (answered && (answered.method ?? "GET") === "GET" && pagePaths.has(answered.path)) pageViewMs.push(milliseconds);
      });
      result = await run;
    } finally {
      clearInterval(sampler);
    }
    const endRss = rssMb(app.pid, "VmRSS");
    const peakRss = rssMb(app.pid, "VmHWM");

    const byStatus = Object.entries(result.statusCodeStats ?? {})
      .map(([code, stat]) => [Number(code), stat.count] as const)
      .sort((a, b) => a[0] - b[0]);
    const count = (test: (code: number) => boolean) => byStatus.filter(([code]) => test(code)).reduce((sum, [, n]) => sum + n, 0);
    // A 503 is admission control's quick "try again" (always with Retry-After, server/app.ts), not a failure.
    const busy = count((code) => code === 503);
    const server5xx = count((code) => code >= 500 && code !== 503);
    const limited = count((code) => code === 429);
    const other4xx = count((code) => code >= 400 && code < 500 && code !== 429);
    // Memory is stable when the second half of the run does not keep growing.
    const midRss = samples[Math.floor(samples.length / 2)] ?? startRss;
    const growth = endRss - midRss;
    pageViewMs.sort((a, b) => a - b);
    const pageP50 = percentile(pageViewMs, 0.5);
    const pageP99 = percentile(pageViewMs, 0.99);
    const lines: (TargetLine & { text: string })[] = [
      {
        name: "mixed load page views p99",
        ok: pageViewMs.length > 0 && pageP99 < PAGE_VIEW_P99_TARGET_MS,
        text: `page views (${[...pagePaths].join(", ")}): ${pageViewMs.length} answered, p50 ${pageP50.toFixed(0)} ms, p99 ${pageP99.toFixed(0)} ms (target p99 < ${PAGE_VIEW_P99_TARGET_MS} ms)`,
      },
      {
        name: "mixed load 5xx",
        ok: server5xx === 0 && result.errors === 0,
        text: `server errors: ${server5xx} 5xx other than 503, ${result.errors} connection errors, ${result.timeouts} timeouts (target 0); ${busy} refused as busy (503 + Retry-After)`,
      },
      {
        name: "mixed load memory",
        ok: growth < 64,
        text: `server RSS: ${startRss.toFixed(0)} MB after warm-up, ${midRss.toFixed(0)} MB at half time, ${endRss.toFixed(0)} MB at the end, peak ${peakRss.toFixed(0)} MB (target: < 64 MB growth over the second half)`,
      },
    ];
    console.log(
      `requests               ${result.requests.total} in ${SECONDS} s: ${result.requests.average.toFixed(0)} req/s, ${(result.throughput.average / 1024 / 1024).toFixed(1)} MB/s`,
    );
    console.log(`latency                p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
    console.log(
      `status counts          ${byStatus.map(([code, n]) => `${code}: ${n}`).join(", ")} (429 = login rate limit: ${limited}; other 4xx: ${other4xx})`,
    );
    console.log(`server log             ${app.serverLog.slowQueries} slow-query warnings (>= 200 ms)`);
    if (server5xx > 0) console.log(`server log tail:\n${app.serverLog.tail}`);
    console.log(`RSS samples (MB)       ${samples.map((value) => value.toFixed(0)).join(" ")}`);
    for (const line of lines) console.log(`${line.ok ? "PASS" : "MISS"}  ${line.text}`);
    return lines.map(({ name, ok }) => ({ name, ok }));
  } finally {
    await app.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes("--seed")) {
    await seed();
    // The password-hashing worker threads would keep this child alive.
    process.exit(0);
  } else await runLoadBenchmark();
}
