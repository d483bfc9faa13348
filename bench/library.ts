// Library benchmark: the posts listing of a logged-in user with 1,000 posts (50 unlocked by
// purchases) against a bare node:http server answering the same JSON bytes, and a 512 MiB
// download through the app against a bare fs stream, with the app server's peak RSS.
// BENCH_DATABASE picks the database: "direct" (the machine's PostgreSQL, default), "embedded"
// (what `npm start` runs without DATABASE_URL) or "pgbouncer" (the machine's PostgreSQL behind
// PgBouncer in transaction mode). `node --import tsx bench/library.ts` runs it alone.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, createReadStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createMigratedDatabase, dropDatabase, prismaCli, uniqueName } from "../tests/db.ts";
import { startPgbouncer, type Pooler } from "../tests/pgbouncer.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../scripts/embedded-postgres.ts";
import { appServerArgs, appServerEnv, ensureAppBuilt, freePort, waitForHealth } from "../scripts/app-server.ts";

const POSTS = 1000;
const UNLOCKED_BY_PURCHASE = 50;
const DOWNLOAD_BYTES = 512 * 1024 * 1024;
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 10;
// The app and the bare server take turns, ROUNDS times each, and the median round of each side
// counts: on a shared 2-core machine one round of either side varies by 20% or more.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DATABASES = ["direct", "embedded", "pgbouncer"] as const;
export type BenchDatabase = (typeof DATABASES)[number];

function median<T>(items: T[], value: (item: T) => number): T {
  return [...items].sort((a, b) => value(a) - value(b))[Math.floor(items.length / 2)]!;
}

export type TargetLine = { name: string; ok: boolean };

type AutocannonResult = {
  requests: { average: number };
  throughput: { average: number };
  latency: { p99: number; average: number };
  non2xx: number;
  errors: number;
};
type Autocannon = (options: { url: string; connections: number; duration: number; headers?: Record<string, string> }) => Promise<AutocannonResult>;

/** Peak (VmHWM) or current (VmRSS) resident set size of a process, in MB. */
export function rssMb(pid: number, field: "VmHWM" | "VmRSS" = "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Downloads a URL, counting bytes; answers MB/s. */
async function timeDownload(url: string, headers: Record<string, string> = {}): Promise<{ mbPerSecond: number; bytes: number }> {
  const started = process.hrtime.bigint();
  const bytes = await new Promise<number>((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`GET ${url} answered ${response.statusCode}`));
          response.resume();
          return;
        }
        let total = 0;
        response.on("data", (chunk: Buffer) => (total += chunk.length));
        response.on("end", () => resolve(total));
        response.on("error", reject);
      })
      .on("error", reject);
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { mbPerSecond: bytes / 1024 / 1024 / seconds, bytes };
}

function pad(text: string, width: number) {
  return text.padEnd(width);
}

/** A database for the benchmark, migrated and empty. */
async function benchDatabase(kind: BenchDatabase, databaseName: string, dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  if (kind === "embedded") {
    const embedded: EmbeddedPostgres = await startEmbeddedPostgres(dataDir);
    await prismaCli(["migrate", "deploy"], embedded.url);
    return { url: embedded.url, stop: embedded.stop };
  }
  const direct = await createMigratedDatabase(databaseName);
  if (kind === "direct") return { url: direct, stop: async () => undefined };
  const pooler: Pooler = await startPgbouncer({ poolSize: 10 });
  process.env.DIRECT_DATABASE_URL = direct;
  return { url: pooler.url(databaseName), stop: pooler.stop };
}

export async function runLibraryBenchmark(kind: BenchDatabase = "direct"): Promise<TargetLine[]> {
  const buildDir = process.env.REMIX_BUILD_DIR ?? "build";
  ensureAppBuilt(buildDir);

  const databaseName = uniqueName("clib_bench");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-bench-"));
  let server: ChildProcess | undefined;
  let bare: http.Server | undefined;
  let database: { url: string; stop: () => Promise<void> } | undefined;
  try {
    console.log(
      `Library benchmark on the ${kind} database: ${POSTS} posts, ${UNLOCKED_BY_PURCHASE} unlocked by purchases, ${DOWNLOAD_BYTES / 1024 / 1024} MiB download`,
    );
    database = await benchDatabase(kind, databaseName, dataDir);
    const databaseUrl = database.url;
    const port = await freePort();
    Object.assign(process.env, {
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SESSION_SECRET: "bench-session-secret-bench-session-secret",
      APP_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      DISABLE_JOBS: "1",
      // One app process, so the figures (and the peak RSS) are per worker; production runs one
      // per core (server/index.ts).
      WEB_CONCURRENCY: "1",
      STORAGE_DRIVER: "local",
    });

    // Seed: tiers, 1,000 posts (every 20th bought by the user's verified shop email), the big file.
    const { db } = await import("../app/db.server.ts");
    const { createUserSession } = await import("../app/models/session.server.ts");
    const { DEMO_TIERS } = await import("../prisma/demo-content.ts");
    // Migration 0030 holds these tiers by id; the demo names and prices them.
    for (const tier of DEMO_TIERS) await db.tier.upsert({ where: { id: tier.id }, create: { ...tier }, update: { ...tier } });
    const now = Date.now();
    const posts = Array.from({ length: POSTS }, (_, index) => {
      const kind = index % 4;
      return {
        id: String(200000 + index),
        title: `Benchmark post ${index} ${["furniture", "hair", "build", "clothes"][kind]}`,
        imageKey: `images/posts/${200000 + index}.jpg`,
        paidContent: kind !== 0,
        url: `benchmark-post-${index}`,
        kofiId: `B${index}`,
        isKofiOnly: kind === 3,
        driveFileId: `posts/${200000 + index}/file.package`,
        fileName: "file.package",
        fileSize: BigInt(1024 * (index + 1)),
        version: index % 7 === 0 ? "V1.1" : "V1.0",
        firstPublishedAt: new Date(now - index * 3_600_000),
        publishedAt: new Date(now - index * 3_600_000),
        lastUpdated: new Date(now - index * 1_800_000),
        orderDate: new Date(now - index * 3_600_000),
      };
    });
    await db.post.createMany({ data: posts });
    await db.postTier.createMany({
      data: posts.flatMap((post, index) =>
        index % 4 === 1 || index % 4 === 2
          ? [
              { postId: post.id, tierId: "8825009", kind: "CURRENT" as const },
              { postId: post.id, tierId: "21786318", kind: "CURRENT" as const },
            ]
          : [],
      ),
    });
    const user = await db.user.create({
      data: { email: "bench@example.com", fullName: "Bench User", mailVerified: true, tosAccepted: true, currentTierId: "8824971" },
    });
    await db.shopEmail.create({ data: { userId: user.id, email: "buyer@example.com", verifiedEmail: "buyer@example.com", verifiedAt: new Date() } });
    const bought = posts
      .filter((_, index) => index % 4 !== 0)
      .filter((_, index) => index % 15 === 0)
      .slice(0, UNLOCKED_BY_PURCHASE);
    await db.purchase.createMany({
      data: bought.map((post, index) => ({
        email: "buyer@example.com",
        kofiItemCode: post.kofiId,
        transactionId: `bench-${index}`,
        source: "CSV" as const,
        purchasedAt: new Date(),
      })),
    });
    const bigKey = "posts/bench/big-download.bin";
    await db.post.create({
      data: {
        id: "299999",
        title: "Big download",
        paidContent: false,
        driveFileId: bigKey,
        fileName: "big-download.bin",
        fileSize: BigInt(DOWNLOAD_BYTES),
        orderDate: new Date(0),
      },
    });
    const cookie = (await createUserSession(user.id)).split(";")[0]!;
    await db.$disconnect();

    const bigFile = path.join(dataDir, "files", bigKey);
    await mkdir(path.dirname(bigFile), { recursive: true });
    {
      const out = createWriteStream(bigFile);
      const chunk = Buffer.alloc(1024 * 1024, 0x5a);
      for (let written = 0; written < DOWNLOAD_BYTES; written += chunk.length) {
        if (!out.write(chunk)) await once(out, "drain");
      }
      out.end();
      await once(out, "finish");
    }

    // The production server (server/index.ts), as `npm start` runs it.
    server = spawn(
      process.execPath,
      [...(process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : []), ...appServerArgs(buildDir)],
      {
        env: appServerEnv(process.env),
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(`${base}/healthz`, server);

    const startedRss = rssMb(server.pid!);
    const listingUrl = `${base}/api/library/posts`;
    const first = await fetch(listingUrl, { headers: { Cookie: cookie } });
    const body = Buffer.from(await first.arrayBuffer());
    const listing = JSON.parse(body.toString()) as { posts: { unlocked: boolean }[] };
    const unlocked = listing.posts.filter((post) => post.unlocked).length;
    console.log(`Listing: ${listing.posts.length} posts, ${unlocked} unlocked for the user, ${(body.length / 1024).toFixed(0)} KiB of JSON`);

    // The bare server answers the very same bytes, and streams the same file.
    bare = http.createServer((request, response) => {
      if (request.url === "/download") {
        response.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": DOWNLOAD_BYTES });
        createReadStream(bigFile).pipe(response);
        return;
      }
      response.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": body.length });
      response.end(body);
    });
    bare.listen(0, "127.0.0.1");
    await once(bare, "listening");
    const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

    if (process.env.BENCH_SEQUENTIAL) {
      // Diagnostic: one request at a time shows the per-request cost without queueing.
      for (const [label, url, headers] of [
        ["app", listingUrl, { Cookie: cookie }],
        ["guest", listingUrl, {}],
        ["health", `${base}/healthz`, {}],
      ] as const) {
        const started = process.hrtime.bigint();
        for (let index = 0; index < 50; index++) await (await fetch(url, { headers })).arrayBuffer();
        console.log(`sequential ${label}: ${(Number(process.hrtime.bigint() - started) / 1e6 / 50).toFixed(2)} ms per request`);
      }
    }
    const { default: autocannon } = (await import("autocannon")) as { default: Autocannon };
    // Short warm-up of the app (JIT, connection pool), not measured.
    await autocannon({ url: listingUrl, connections: CONNECTIONS, duration: 2, headers: { Cookie: cookie } });
    const appRounds: AutocannonResult[] = [];
    const bareRounds: AutocannonResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      appRounds.push(await autocannon({ url: listingUrl, connections: CONNECTIONS, duration: LOAD_SECONDS, headers: { Cookie: cookie } }));
      bareRounds.push(await autocannon({ url: `${bareBase}/listing`, connections: CONNECTIONS, duration: LOAD_SECONDS }));
    }
    const app = median(appRounds, (result) => result.requests.average);
    const plain = median(bareRounds, (result) => result.requests.average);

    const listingRss = rssMb(server.pid!);
    const appDownloads: { mbPerSecond: number; bytes: number }[] = [];
    const bareDownloads: { mbPerSecond: number; bytes: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      appDownloads.push(await timeDownload(`${base}/api/download/299999`, { Cookie: cookie }));
      bareDownloads.push(await timeDownload(`${bareBase}/download`));
    }
    const wrong = appDownloads.find((download) => download.bytes !== DOWNLOAD_BYTES);
    if (wrong) throw new Error(`The app sent ${wrong.bytes} bytes instead of ${DOWNLOAD_BYTES}`);
    const appDownload = median(appDownloads, (download) => download.mbPerSecond);
    const bareDownload = median(bareDownloads, (download) => download.mbPerSecond);
    const rss = rssMb(server.pid!);

    // For context: the same app answering its smallest endpoint (one SELECT 1, a few bytes).
    const floor = await autocannon({ url: `${base}/healthz`, connections: CONNECTIONS, duration: Math.min(LOAD_SECONDS, 5) });

    const listingRatio = app.requests.average / plain.requests.average;
    const downloadRatio = appDownload.mbPerSecond / bareDownload.mbPerSecond;
    const lines: (TargetLine & { text: string })[] = [
      {
        name: `listing throughput (${kind})`,
        ok: listingRatio >= 0.5,
        text: `listing: app ${app.requests.average.toFixed(0)} req/s vs bare ${plain.requests.average.toFixed(0)} req/s, ratio ${listingRatio.toFixed(2)} (target >= 0.50)`,
      },
      {
        name: `download throughput (${kind})`,
        ok: downloadRatio >= 0.8,
        text: `download: app ${appDownload.mbPerSecond.toFixed(0)} MB/s vs bare fs stream ${bareDownload.mbPerSecond.toFixed(0)} MB/s, ratio ${downloadRatio.toFixed(2)} (target >= 0.80)`,
      },
      { name: `peak RSS (${kind})`, ok: rss < 250, text: `app server peak RSS: ${rss.toFixed(0)} MB (target < 250 MB)` },
    ];
    console.log("");
    const rounds = (values: number[]) => values.map((value) => value.toFixed(0)).join(", ");
    console.log(
      `${pad("rounds (median counts)", 22)} listing app ${rounds(appRounds.map((r) => r.requests.average))} req/s; bare ${rounds(bareRounds.map((r) => r.requests.average))} req/s`,
    );
    console.log(
      `${pad("", 22)} download app ${rounds(appDownloads.map((d) => d.mbPerSecond))} MB/s; bare ${rounds(bareDownloads.map((d) => d.mbPerSecond))} MB/s`,
    );
    console.log(
      `${pad("listing latency", 22)} app avg ${app.latency.average.toFixed(1)} ms, p99 ${app.latency.p99} ms; bare avg ${plain.latency.average.toFixed(1)} ms`,
    );
    console.log(`${pad("app /healthz", 22)} ${floor.requests.average.toFixed(0)} req/s (the framework's own ceiling here, for comparison)`);
    console.log(`${pad("listing errors", 22)} app non-2xx ${app.non2xx}, errors ${app.errors}; bare non-2xx ${plain.non2xx}`);
    console.log(
      `${pad("app server RSS (peak)", 22)} after start ${startedRss.toFixed(0)} MB, after the listing load ${listingRss.toFixed(0)} MB, after the download ${rss.toFixed(0)} MB`,
    );
    for (const line of lines) console.log(`${line.ok ? "PASS" : "MISS"}  ${line.text}`);
    return lines.map(({ name, ok }) => ({ name, ok }));
  } finally {
    server?.kill("SIGTERM");
    if (server && server.exitCode === null) await Promise.race([once(server, "exit"), new Promise((resolve) => setTimeout(resolve, 5000))]);
    bare?.close();
    await database?.stop().catch(() => undefined);
    await dropDatabase(databaseName).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Runs the benchmark in a process of its own: the app's database client is one per process, so
 * each database gets a fresh one.
 */
export async function runLibraryBenchmarkApart(kind: BenchDatabase): Promise<TargetLine[]> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), kind], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk.toString().replace(/^RESULT .*\n?/m, ""));
  });
  await once(child, "exit");
  const result = /^RESULT (.*)$/m.exec(output);
  return result ? (JSON.parse(result[1]!) as TargetLine[]) : [{ name: `library benchmark (${kind}) did not finish`, ok: false }];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const kind = (process.argv[2] ?? process.env.BENCH_DATABASE ?? "direct") as BenchDatabase;
  if (!DATABASES.includes(kind)) throw new Error(`unknown database ${kind}; one of ${DATABASES.join(", ")}`);
  const lines = await runLibraryBenchmark(kind);
  console.log(`RESULT ${JSON.stringify(lines)}`);
  process.exit(0);
}
