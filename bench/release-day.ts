// Release day: a paid post opens to its supporters, who all come within a minute. 500 supporters
// (BENCH_RELEASE_USERS) arrive spread over 60 s (BENCH_RELEASE_SECONDS, random arrival times
// from a fixed seed), each over its own keep-alive connection (a node:http Agent with one
// socket, as a browser tab keeps one): one in ten signs in with a password first (alternately
// the /login form and POST /api/auth/login), the others already have a session; then each
// loads /library (compressed, as a browser asks) and downloads the post's 20 MiB ZIP
// (BENCH_RELEASE_MIB), stamped with its trace number. The app is the production cluster (one
// worker per core) on a fresh database with the demo content (bench/load.ts startSeededApp).
//
// Measured: page p99 and sign-in p50/p99 during the wave, errors, each worker's peak RSS
// (VmHWM), and the download records (one row per supporter who got the whole file). Then:
// - Download throughput: the app's stamped download against a bare node:http server streaming
//   the stored file with fs.createReadStream, in alternating rounds after the wave
//   (BENCH_RELEASE_ROUNDS each, whole bodies, the medians count), one download at a time over a
//   kept-alive connection. The bare server is a plain node process of its own on 127.0.0.1, not
//   a read from disk in this process: the app's bytes cross a loopback socket from another
//   process and are parsed by this same HTTP client, so a fair "bare fs stream" pays for the same
//   socket, HTTP framing and client, and the ratio then measures what the app adds (session,
//   entitlement, stamp, download record, Remix's stream). A read in this process would skip all
//   of that and make the target a measure of loopback TCP; a bare server inside this process
//   would share the measuring client's event loop. It reads in 512 KiB chunks as the app's local
//   storage does (fs's default of 64 KiB made the bare server the slower one, ratio 1.97 in a
//   trial run): the same reads, so the ratio is what the app adds. One download at a time, as
//   each worker and the bare server are one event loop each: parallel downloads would compare
//   two workers with one.
// - The sign-in burst of bench/pages.ts (45 connections on /library as the supporter beside 5
//   signing in with unknown emails, BENCH_RELEASE_BURST_PAIRS alone/beside pairs of
//   BENCH_RELEASE_BURST_SECONDS each; 0 pairs skips it), with a target on the sign-ins' p99 too.
//
// BENCH_RELEASE_DETAIL=1 also prints the slowest views with their arrival in the wave.
//
// `node --import tsx bench/release-day.ts` runs it alone; a small smoke run:
// BENCH_RELEASE_USERS=40 BENCH_RELEASE_SECONDS=8 BENCH_RELEASE_MIB=4 BENCH_RELEASE_BURST_PAIRS=1.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";
import { runSignInBurst } from "./sign-in-burst.ts";
// Types only: a value import of load.ts would make the seeding child (load.ts, which imports
// this module for seedExtra) import itself while it runs.
import type { ExtraSeedContext, SeededApp } from "./load.ts";

export type { TargetLine } from "./child.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const USERS = Number(process.env.BENCH_RELEASE_USERS ?? 500);
const SECONDS = Number(process.env.BENCH_RELEASE_SECONDS ?? 60);
const MIB = Number(process.env.BENCH_RELEASE_MIB ?? 20);
const ROUNDS = Number(process.env.BENCH_RELEASE_ROUNDS ?? 15);
const BURST_PAIRS = Number(process.env.BENCH_RELEASE_BURST_PAIRS ?? 3);
const BURST_SECONDS = Number(process.env.BENCH_RELEASE_BURST_SECONDS ?? 5);
/** Every SIGN_IN_EVERY-th supporter has no session and signs in with a password. */
const SIGN_IN_EVERY = 10;
const PASSWORD = "Release-day-1234!";
const POST_ID = "release-day";
const KEY = "posts/release-day/release.zip";
const BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd";
/** The header the app is told carries the client's address: each supporter comes from its own. */
const CLIENT_HEADER = "x-bench-client";

const TARGETS = { pageP99Ms: 300, signInP99Ms: 2_000, throughputRatio: 0.8, workerRssMb: 300, burstGrowth: 1.5 };

type ReleaseUser = { email: string; cookie: string | null };
type ReleaseSeed = { users: ReleaseUser[]; storedBytes: number };

/** Seeds the release (in startSeededApp's seeding child): the paid post and its ZIP, and the supporters. */
export async function seedExtra({ db, store, supporterTierId }: ExtraSeedContext): Promise<ReleaseSeed> {
  if (!supporterTierId) throw new Error("the demo supporter has no tier");
  const { writeZip } = await import("../tests/zip-files.ts");
  const { sessionCookie } = await import("../app/utils/auth-cookies.server.ts");
  const { hashPassword } = await import("../app/models/passwords.server.ts");
  const { randomBytes } = await import("node:crypto");
  // A valid stored ZIP (Python's zipfile) of MIB MiB in 4 entries: the stamp rewrites its end record.
  const folder = mkdtempSync(path.join(os.tmpdir(), "clib-release-"));
  try {
    const zipPath = path.join(folder, "release.zip");
    const entries = Math.min(4, Math.max(1, MIB));
    writeZip(
      zipPath,
      Array.from({ length: entries }, (_, index) => ({
        name: `mod/part-${index}.bin`,
        text: "0123456789abcdef".repeat(64 * 1024),
        repeat: Math.max(1, Math.round(MIB / entries)),
      })),
    );
    await store.put(KEY, readFileSync(zipPath));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const storedBytes = (await store.stat(KEY))!.size;
  await db.post.create({
    data: {
      id: POST_ID,
      title: "Release day",
      paidContent: true,
      driveFileId: KEY,
      fileName: "release.zip",
      fileSize: BigInt(storedBytes),
      tiers: { create: [{ tierId: supporterTierId, kind: "CURRENT" }] },
    },
  });
  // One bcrypt hash for every password (the same password): seeding stays fast.
  const passwordHash = await hashPassword(PASSWORD);
  const signsIn = (index: number) => index % SIGN_IN_EVERY === SIGN_IN_EVERY - 1;
  const emails = Array.from({ length: USERS }, (_, index) => `release-${index}@example.com`);
  await db.user.createMany({
    data: emails.map((email, index) => ({
      email,
      fullName: `Supporter ${index}`,
      mailVerified: true,
      tosAccepted: true,
      currentTierId: supporterTierId,
      passwordHash: signsIn(index) ? passwordHash : null,
    })),
  });
  const ids = new Map((await db.user.findMany({ where: { email: { in: emails } }, select: { id: true, email: true } })).map((user) => [user.email, user.id]));
  const expiresAt = new Date(Date.now() + 30 * 24 * 3_600_000);
  const sessions = emails.map((email, index) => (signsIn(index) ? null : { id: randomBytes(32).toString("base64url"), userId: ids.get(email)!, expiresAt }));
  await db.session.createMany({ data: sessions.filter((session) => session !== null) });
  const cookies = await Promise.all(sessions.map(async (session) => (session ? (await sessionCookie().serialize(session.id)).split(";")[0]! : null)));
  return { users: emails.map((email, index) => ({ email, cookie: cookies[index]! })), storedBytes };
}

export function benchReleaseDay(): Promise<TargetLine[]> {
  return runBenchChild(path.join(here, "release-day.ts"), "release day");
}

type Answer = { status: number; headers: http.IncomingHttpHeaders; bytes: number; ms: number };

/** One request over `agent`, its body read to the end and counted (not kept). */
function send(agent: http.Agent, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(url, { agent, method: options.method ?? "GET", headers: options.headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => (bytes += chunk.length));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, bytes, ms: performance.now() - started }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

/** The session cookie (name=value) among a response's Set-Cookie headers, or null. */
function sessionFrom(headers: http.IncomingHttpHeaders): string | null {
  return (
    (headers["set-cookie"] ?? [])
      .map((cookie) => cookie.split(";")[0]!)
      .find((cookie) => cookie.startsWith("__session=") && cookie.length > "__session=".length) ?? null
  );
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** A small seeded PRNG (mulberry32): the same arrival times in every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The cluster's worker processes (children of the primary). */
function workerPids(primary: number): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${primary}/task`)) {
    pids.push(...readFileSync(`/proc/${primary}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number));
  }
  return pids.length > 0 ? pids : [primary];
}

type Visit = { signInMs?: number; pageMs?: number; downloadMs?: number; downloadBytes?: number; error?: string };

/** One supporter's visit: sign in if needed, the library, the download; each on the same kept-alive connection. */
async function visit(app: SeededApp, user: ReleaseUser, index: number): Promise<Visit> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const address = { [CLIENT_HEADER]: `172.16.${(index >> 8) & 255}.${index & 255}` };
  const result: Visit = {};
  try {
    let cookie = user.cookie;
    if (!cookie) {
      const viaForm = Math.floor(index / SIGN_IN_EVERY) % 2 === 0;
      const answer = viaForm
        ? await send(agent, `${app.base}/login`, {
            method: "POST",
            headers: { ...address, Origin: app.base, "Content-Type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ intent: "login", email: user.email, password: PASSWORD }).toString(),
          })
        : await send(agent, `${app.base}/api/auth/login`, {
            method: "POST",
            headers: { ...address, Origin: app.base, "Content-Type": "application/json" },
            body: JSON.stringify({ email: user.email, password: PASSWORD }),
          });
      result.signInMs = answer.ms;
      cookie = sessionFrom(answer.headers);
      if (!cookie || answer.status >= 400)
        throw new Error(`sign-in (${viaForm ? "/login form" : "/api/auth/login"}) answered ${answer.status}${cookie ? "" : " without a session"}`);
    }
    const page = await send(agent, `${app.base}/library`, { headers: { ...address, Cookie: cookie, "Accept-Encoding": BROWSER_ACCEPT_ENCODING } });
    result.pageMs = page.ms;
    if (page.status !== 200) throw new Error(`/library answered ${page.status}`);
    const download = await send(agent, `${app.base}/api/download/${POST_ID}`, { headers: { ...address, Cookie: cookie } });
    if (download.status !== 200 || download.bytes !== Number(download.headers["content-length"])) {
      throw new Error(`the download answered ${download.status} with ${download.bytes} of ${download.headers["content-length"]} bytes`);
    }
    result.downloadMs = download.ms;
    result.downloadBytes = download.bytes;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    agent.destroy();
  }
  return result;
}

/** A plain node:http server in a process of its own, streaming `file` with fs.createReadStream (512 KiB reads, as LocalStorage). */
async function startBareServer(file: string): Promise<{ url: string; child: ChildProcess }> {
  const script = `
    const http = require("node:http"), fs = require("node:fs");
    const file = process.argv[1], size = fs.statSync(file).size;
    const server = http.createServer((request, response) => {
      response.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": size });
      fs.createReadStream(file, { highWaterMark: 512 * 1024 }).pipe(response);
    });
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ["-e", script, file], { stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = (await once(child.stdout, "data")) as [Buffer];
  return { url: `http://127.0.0.1:${chunk.toString().trim()}/release.zip`, child };
}

async function runChild() {
  const { startSeededApp } = await import("./load.ts");
  const workers = os.availableParallelism();
  console.log(
    `\nRelease day: ${USERS} supporters within ${SECONDS} s (1 in ${SIGN_IN_EVERY} signs in first), /library and a ${MIB} MiB stamped ZIP each, app with ${workers} workers`,
  );
  const seedStart = performance.now();
  const app = await startSeededApp({ workers, clientIpHeader: CLIENT_HEADER, extraSeed: fileURLToPath(import.meta.url) });
  let bare: ChildProcess | undefined;
  const lines: (TargetLine & { text: string })[] = [];
  try {
    const { users, storedBytes } = app.extra as ReleaseSeed;
    console.log(`seeded and started in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (${(storedBytes / 1024 / 1024).toFixed(1)} MiB ZIP stored)`);
    const pids = workerPids(app.pid);
    // Warm-up, not measured: the demo supporter's library three times on one connection (so one
    // worker; each worker has also served a guest's pages to itself before it listened). The demo
    // supporter has not accepted the terms, so a download here would be refused: none is made.
    const warm = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let round = 0; round < 3; round++) {
      await send(warm, `${app.base}/library`, { headers: { Cookie: app.supporterCookie, "Accept-Encoding": BROWSER_ACCEPT_ENCODING } });
    }
    warm.destroy();

    // The wave.
    const next = random(20261126);
    const arrivals = users.map(() => next() * SECONDS * 1000).sort((a, b) => a - b);
    const rssSamples = new Map<number, number[]>(pids.map((pid) => [pid, []]));
    const { rssMb } = await import("./library.ts");
    const sampler = setInterval(() => {
      for (const pid of pids) rssSamples.get(pid)!.push(rssMb(pid, "VmRSS"));
    }, 1_000);
    let inFlight = 0;
    let mostInFlight = 0;
    const waveStart = performance.now();
    let visits: Visit[];
    try {
      visits = await Promise.all(
        users.map(async (user, index) => {
          await new Promise((resolve) => setTimeout(resolve, arrivals[index]));
          inFlight += 1;
          mostInFlight = Math.max(mostInFlight, inFlight);
          try {
            return await visit(app, user, index);
          } finally {
            inFlight -= 1;
          }
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    const waveSeconds = (performance.now() - waveStart) / 1000;
    const peakRss = pids.map((pid) => rssMb(pid, "VmHWM"));

    const errors = visits.filter((entry) => entry.error);
    const pageMs = visits.flatMap((entry) => (entry.pageMs === undefined ? [] : [entry.pageMs]));
    const signInMs = visits.flatMap((entry) => (entry.signInMs === undefined ? [] : [entry.signInMs]));
    const downloads = visits.filter((entry) => entry.downloadBytes !== undefined);
    const downloadRates = downloads.map((entry) => entry.downloadBytes! / 1024 / 1024 / (entry.downloadMs! / 1000));
    const totalBytes = downloads.reduce((sum, entry) => sum + entry.downloadBytes!, 0);

    // Every download recorded once: the post's rows, and the supporters they name.
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: app.databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ rows: number; people: number }>(
      "SELECT count(*)::int AS rows, count(DISTINCT user_id)::int AS people FROM downloads WHERE post_id = $1 AND user_id IN (SELECT id FROM users WHERE email LIKE 'release-%')",
      [POST_ID],
    );
    await client.end();
    const recorded = rows[0]!;

    console.log(
      `wave: ${visits.length} supporters in ${waveSeconds.toFixed(1)} s, at most ${mostInFlight} at once; ${downloads.length} downloads, ${(totalBytes / 1024 / 1024).toFixed(0)} MiB, ${(totalBytes / 1024 / 1024 / waveSeconds).toFixed(1)} MB/s over the wave`,
    );
    console.log(
      `  /library           ${pageMs.length} views, p50 ${median(pageMs).toFixed(0)} ms, p99 ${percentile(pageMs, 0.99).toFixed(0)} ms, max ${Math.max(...pageMs).toFixed(0)} ms`,
    );
    console.log(
      `  sign-ins           ${signInMs.length}, p50 ${median(signInMs).toFixed(0)} ms, p99 ${percentile(signInMs, 0.99).toFixed(0)} ms, max ${Math.max(...signInMs).toFixed(0)} ms`,
    );
    console.log(
      `  downloads          per download median ${median(downloadRates).toFixed(0)} MB/s (slowest tenth ${percentile(downloadRates, 0.1).toFixed(0)} MB/s), median ${median(downloads.map((entry) => entry.downloadMs!)).toFixed(0)} ms each`,
    );
    console.log(
      `  worker RSS (MB)    peak ${peakRss.map((value) => value.toFixed(0)).join(", ")}; samples ${[...rssSamples.values()].map((samples) => samples.map((value) => value.toFixed(0)).join(" ")).join(" | ")}`,
    );
    console.log(`  download rows      ${recorded.rows} rows for ${recorded.people} supporters, ${downloads.length} downloads done`);
    if (process.env.BENCH_RELEASE_DETAIL === "1") {
      // The slowest views with their arrival in the wave (where the p99 is made).
      const slowest = visits
        .map((entry, index) => ({ ms: entry.pageMs ?? 0, at: arrivals[index]! / 1000, signedIn: entry.signInMs !== undefined }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 15);
      console.log(
        `  slowest views      ${slowest.map((view) => `${view.ms.toFixed(0)} ms at ${view.at.toFixed(1)} s${view.signedIn ? " (signed in first)" : ""}`).join("; ")}`,
      );
    }
    for (const entry of errors.slice(0, 5)) console.log(`  error: ${entry.error}`);
    // A download whose record failed still completes (the app logs "Could not record a download").
    if (errors.length > 0 || recorded.rows !== downloads.length) console.log(`server stderr tail:\n${app.serverLog.tail}`);

    // Throughput against the bare fs stream of the stored file, alternating rounds.
    const bareServer = await startBareServer(path.join(app.dataDir, "files", KEY));
    bare = bareServer.child;
    const bareUrl = bareServer.url;
    const someone = users.find((user) => user.cookie)!;
    const appAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const bareAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const appRates: number[] = [];
    const bareRates: number[] = [];
    let throughputErrors = 0;
    const rate = async (agent: http.Agent, url: string, headers: Record<string, string>) => {
      const answer = await send(agent, url, { headers });
      if (answer.status !== 200 || answer.bytes !== Number(answer.headers["content-length"])) throughputErrors += 1;
      return answer.bytes / 1024 / 1024 / (answer.ms / 1000);
    };
    const appDownload = () => rate(appAgent, `${app.base}/api/download/${POST_ID}`, { Cookie: someone.cookie!, [CLIENT_HEADER]: "172.31.0.1" });
    const bareDownload = () => rate(bareAgent, bareUrl, {});
    await appDownload();
    await bareDownload();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order, so neither side always follows the other.
      if (round % 2 === 0) {
        appRates.push(await appDownload());
        bareRates.push(await bareDownload());
      } else {
        bareRates.push(await bareDownload());
        appRates.push(await appDownload());
      }
    }
    appAgent.destroy();
    bareAgent.destroy();
    const ratio = median(appRates) / median(bareRates);
    console.log(
      `throughput: app (stamped) ${appRates.map((value) => value.toFixed(0)).join(" ")} MB/s; bare fs stream ${bareRates.map((value) => value.toFixed(0)).join(" ")} MB/s`,
    );

    // The sign-in burst of bench/pages.ts (bench/sign-in-burst.ts), with the sign-ins' p99.
    const burst =
      BURST_PAIRS > 0
        ? await runSignInBurst({
            base: app.base,
            supporterCookie: app.supporterCookie,
            clientHeader: CLIENT_HEADER,
            pairs: BURST_PAIRS,
            seconds: BURST_SECONDS,
          })
        : [];

    const pageP99 = percentile(pageMs, 0.99);
    const signInP99 = percentile(signInMs, 0.99);
    const worstRss = Math.max(...peakRss);
    lines.push(
      {
        name: "release day errors",
        ok: errors.length === 0 && throughputErrors === 0 && burst.every((pair) => pair.failures === 0),
        text: `release day: ${errors.length} failed visits, ${throughputErrors} failed throughput downloads, ${burst.reduce((sum, pair) => sum + pair.failures, 0)} failed burst answers (target none)`,
      },
      {
        name: "release day page p99",
        ok: pageMs.length > 0 && pageP99 <= TARGETS.pageP99Ms,
        text: `release day /library p99 ${pageP99.toFixed(0)} ms over ${pageMs.length} views (target <= ${TARGETS.pageP99Ms} ms)`,
      },
      {
        name: "release day sign-in p99",
        ok: signInMs.length > 0 && signInP99 <= TARGETS.signInP99Ms,
        text: `release day sign-ins p50 ${median(signInMs).toFixed(0)} ms, p99 ${signInP99.toFixed(0)} ms over ${signInMs.length} (target p99 <= ${TARGETS.signInP99Ms} ms)`,
      },
      {
        name: "release day download throughput",
        ok: ratio >= TARGETS.throughputRatio,
        text: `release day download: app ${median(appRates).toFixed(0)} MB/s vs bare fs stream ${median(bareRates).toFixed(0)} MB/s, ratio ${ratio.toFixed(2)} (target >= ${TARGETS.throughputRatio})`,
      },
      {
        name: "release day worker RSS",
        ok: worstRss <= TARGETS.workerRssMb,
        text: `release day peak RSS per worker ${peakRss.map((value) => value.toFixed(0)).join(", ")} MB (target <= ${TARGETS.workerRssMb} MB)`,
      },
      {
        name: "release day downloads recorded",
        ok: recorded.rows === downloads.length && recorded.people === downloads.length && downloads.length === USERS,
        text: `release day: ${recorded.rows} download rows for ${downloads.length} of ${USERS} downloads done (target: one each)`,
      },
    );
    if (burst.length > 0) {
      const growth = median(burst.map((pair) => pair.growth));
      const burstSignInP99 = median(burst.map((pair) => pair.signInP99));
      lines.push(
        {
          name: "release day burst page p99 growth",
          ok: growth <= TARGETS.burstGrowth,
          text: `sign-in burst: /library p99 grows x${growth.toFixed(2)}, the median of ${burst.length} pairs (target <= ${TARGETS.burstGrowth})`,
        },
        {
          name: "release day burst sign-in p99",
          ok: burstSignInP99 <= TARGETS.signInP99Ms,
          text: `sign-in burst: sign-in p99 ${burstSignInP99} ms, the median of ${burst.length} pairs (${burst.map((pair) => pair.signInP99).join(", ")}) (target <= ${TARGETS.signInP99Ms} ms)`,
        },
      );
    }
    reportTargets(lines);
  } finally {
    bare?.kill();
    await app.stop();
  }
}

await runAsScript(import.meta.url, runChild, benchReleaseDay);
