// Benchmark: the insights charts at scale. A fresh database gets 1,000,000 downloads over two
// years, 100,000 users, two years of pledges (40,000 supporters), 20,000 shop purchases and a
// vote round, all generated in SQL with generate_series. Each chart's model function then runs
// for the 7, 30, 90 and 365-day ranges: raw rows first (no rollups), then after the rollup job.
//
// `benchInsights()` runs in a child process so its connections never mix with other benchmarks;
// `node --import tsx bench/insights.ts` runs it alone.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measureRounds } from "./timing.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const DOWNLOADS = Number(process.env.BENCH_INSIGHTS_DOWNLOADS ?? 1_000_000);
const USERS = Number(process.env.BENCH_INSIGHTS_USERS ?? 100_000);
const SUPPORTERS = Math.round(USERS * 0.4);
const ROUNDS = Number(process.env.BENCH_INSIGHTS_ROUNDS ?? 15);
/** Target: every chart answers within 200 ms (p95) on that data, once the rollups are kept. */
const TARGET_P95_MS = 200;

export type TargetLine = { name: string; ok: boolean };

export function benchInsights(): Promise<TargetLine[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "insights.ts"), "--child"], {
      stdio: ["ignore", "pipe", "inherit"],
      env: process.env,
    });
    let targets: TargetLine[] = [];
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith("TARGETS ")) targets = JSON.parse(line.slice(8)) as TargetLine[];
        else console.log(line);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(targets) : reject(new Error(`insights benchmark failed (${code})`))));
  });
}

const timeIt = (fn: () => Promise<unknown>) => measureRounds(fn, ROUNDS);

const SEED = [
  `INSERT INTO users (id, email, full_name, mail_verified, created_at, updated_at)
   SELECT 'bench' || g, 'user' || g || '@mail.example', 'User ' || g, true, now() - g * interval '5 minutes', now()
     FROM generate_series(1, ${USERS}) g`,
  `INSERT INTO tiers (id, title, is_paid) SELECT 'bt' || g, 'Tier ' || g, true FROM generate_series(1, 4) g`,
  `INSERT INTO posts (id, title, version, paid_content, kofi_id, updated_at)
   SELECT 'bp' || g, 'Bench post ' || g, 'V3', g % 5 <> 0, 'k' || g, now() FROM generate_series(1, 300) g`,
  // Popular posts are downloaded far more (squared uniform); sources weighted towards tiers.
  `INSERT INTO downloads (id, user_id, post_id, version, created_at, access_source)
   SELECT 'bd' || g, 'bench' || (1 + floor(random() * ${USERS}))::int, 'bp' || (1 + floor(300 * power(random(), 2)))::int,
          'V' || (1 + floor(random() * 3))::int, now() - random() * interval '730 days',
          (ARRAY['FREE','TIER','TIER','TIER','EARLY_SUPPORTER','PURCHASE','GRANT'])[1 + floor(random() * 7)::int]::download_access
     FROM generate_series(1, ${DOWNLOADS}) g`,
  `INSERT INTO pledge_events (id, user_id, type, amount_cents, date, tier_id, tier_title, payment_status)
   SELECT 'start:' || g, 'bench' || g, 'pledge_start', 500, now() - random() * interval '730 days', 'bt' || (1 + g % 4), 'Tier ' || (1 + g % 4), 'Paid'
     FROM generate_series(1, ${SUPPORTERS}) g`,
  `INSERT INTO pledge_events (id, user_id, type, amount_cents, date, tier_id, tier_title, payment_status)
   SELECT 'upgrade:' || substr(id, 7), user_id, 'pledge_upgrade', 1000, LEAST(now(), date + random() * interval '200 days'), 'bt4', 'Tier 4', 'Paid'
     FROM pledge_events WHERE type = 'pledge_start' AND random() < 0.3`,
  `INSERT INTO pledge_events (id, user_id, type, amount_cents, date, tier_id, tier_title, payment_status)
   SELECT 'delete:' || substr(id, 7), user_id, 'pledge_delete', 0, LEAST(now(), date + interval '201 days' + random() * interval '300 days'), tier_id, tier_title, NULL
     FROM pledge_events WHERE type = 'pledge_start' AND random() < 0.35`,
  `INSERT INTO purchases (id, email, kofi_item_code, transaction_id, source, purchased_at, amount_cents, currency)
   SELECT 'bpu' || g, 'buyer' || g || '@shop.example', 'k' || (1 + g % 300), 'tx' || (g / 2), 'WEBHOOK', now() - random() * interval '730 days',
          500 + g % 1000, (ARRAY['EUR','USD'])[1 + g % 2]
     FROM generate_series(1, 20000) g`,
  `INSERT INTO inspiration_panels (id, image_url, title) SELECT 'bi' || g, '/media/idea' || g || '.jpg', 'Idea ' || g FROM generate_series(1, 40) g`,
  `INSERT INTO inspiration_likes (user_id, panel_id, kind, created_at)
   SELECT 'bench' || g, 'bi' || (1 + g % 40), (CASE WHEN g % 4 = 0 THEN 'PATREON' ELSE 'LIKE' END)::like_kind, now() - random() * interval '14 days'
     FROM generate_series(1, 30000) g`,
  // Settled tables, as in production: index-only scans need the visibility map.
  "VACUUM ANALYZE",
];

async function runChild() {
  const warn = console.warn;
  // Raw-row baselines are meant to be slow; keep the app's slow-query warnings out of the report.
  console.warn = (...args: unknown[]) => (typeof args[0] === "string" && args[0].includes('"msg":"slow query') ? undefined : warn(...args));
  const { createMigratedDatabase, dropDatabase, uniqueName, databaseUrl } = await import("../tests/db.ts");
  // BENCH_INSIGHTS_DATABASE=name keeps the seeded database for the next run (for tuning).
  const keep = process.env.BENCH_INSIGHTS_DATABASE;
  const name = keep ?? uniqueName("clib_bench_insights");
  const exists = keep
    ? await createMigratedDatabase(name).then(
        () => false,
        () => true,
      )
    : await createMigratedDatabase(name).then(() => false);
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl(name),
    NODE_ENV: "test",
    SESSION_SECRET: "bench-session-secret-bench-session-secret",
    APP_URL: "http://127.0.0.1:3999",
    DATABASE_POOL_SIZE: "4",
  });
  const { db } = await import("../app/db.server.ts");
  const { downloadsPerDay, topPosts } = await import("../app/models/insights/downloads.server.ts");
  const { supportersByMonth } = await import("../app/models/insights/supporters.server.ts");
  const { shopByMonth } = await import("../app/models/insights/shop.server.ts");
  const { likesPerIdea } = await import("../app/models/insights/inspiration.server.ts");
  const { loadInsights } = await import("../app/models/insights/charts.server.ts");
  const { refreshInsightsRollups } = await import("../app/models/insights/rollup.server.ts");
  const { parseInsightsRange } = await import("../app/utils/insights-schemas.ts");
  try {
    const seedStart = performance.now();
    if (!exists) for (const statement of SEED) await db.$executeRawUnsafe(statement);
    const [counts] = await db.$queryRawUnsafe<{ downloads: number; users: number; pledges: number }[]>(
      "SELECT (SELECT count(*) FROM downloads)::int AS downloads, (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM pledge_events)::int AS pledges",
    );
    console.log(
      `insights: seeded ${counts!.downloads} downloads, ${counts!.users} users, ${counts!.pledges} pledge events in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    const ranges = ["7", "30", "90", "365"].map((days) => {
      const parsed = parseInsightsRange(new URLSearchParams({ range: days }));
      if (!parsed.success) throw new Error(parsed.error);
      return parsed.range;
    });
    const year = ranges[3]!;
    await db.insightsRollupState.deleteMany(); // a kept database may hold rollups already
    const rawDownloads = await timeIt(() => downloadsPerDay(year));
    const rawTop = await timeIt(() => topPosts(year));
    const rawSupporters = await timeIt(() => supportersByMonth(year));
    console.log(
      `  raw rows only, 365 days: downloads per day median ${rawDownloads.median.toFixed(1)} ms, top posts median ${rawTop.median.toFixed(1)} ms, supporters by tier median ${rawSupporters.median.toFixed(1)} ms`,
    );

    const rollStart = performance.now();
    await refreshInsightsRollups(new Date(), { full: true });
    console.log(
      `  rollup job, full rebuild of ${counts!.downloads} downloads and ${counts!.pledges} pledge events: ${((performance.now() - rollStart) / 1000).toFixed(1)} s`,
    );
    const incrementalStart = performance.now();
    await refreshInsightsRollups(new Date(Date.now() + 60_000));
    console.log(`  rollup job, hourly run (last ${2} days again): ${(performance.now() - incrementalStart).toFixed(0)} ms`);

    const charts: [string, (range: (typeof ranges)[number]) => Promise<unknown>][] = [
      ["downloads per day", downloadsPerDay],
      ["top posts", (range) => topPosts(range)],
      ["supporters by tier", supportersByMonth],
      ["shop per month", shopByMonth],
      ["inspiration vote", () => likesPerIdea()],
      ["whole page (all charts)", loadInsights],
    ];
    let slowest = 0;
    console.log(`insights charts, ${ROUNDS} rounds each (median / p95):`);
    for (const [label, load] of charts) {
      const cells: string[] = [];
      for (const range of ranges) {
        const time = await timeIt(() => load(range));
        if (!label.startsWith("whole")) slowest = Math.max(slowest, time.p95);
        cells.push(`${range.preset.padStart(3)} d ${time.median.toFixed(1).padStart(6)} / ${time.p95.toFixed(1).padStart(6)} ms`);
      }
      console.log(`  ${label.padEnd(26)} ${cells.join("   ")}`);
    }
    const targets = [
      {
        name: "insights chart latency",
        ok: slowest <= TARGET_P95_MS,
        text: `insights: slowest chart p95 ${slowest.toFixed(1)} ms over ${counts!.downloads} downloads (target <= ${TARGET_P95_MS} ms)`,
      },
    ];
    for (const target of targets) console.log(`${target.ok ? "PASS" : "MISS"}  ${target.text}`);
    console.log(`TARGETS ${JSON.stringify(targets.map(({ name, ok }) => ({ name, ok })))}`);
  } finally {
    await db.$disconnect();
    if (!keep) await dropDatabase(name);
  }
}

if (process.argv.includes("--child")) {
  await runChild();
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const targets = await benchInsights();
  if (targets.some((target) => !target.ok)) process.exitCode = 1;
}
