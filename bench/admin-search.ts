// Benchmark: the admin user search over 100,000 users. A fresh database is seeded with SQL,
// then each kind of search runs repeatedly through the real model function (searchUsers).
// Prints median and p95 per query, and the ratio to a naive substring scan (ILIKE '%q%').
//
// `benchAdminSearch()` runs the measurement in a child process so its database connection
// never mixes with other benchmarks of the same run, and answers its targets (met or missed).
// `node --import tsx bench/admin-search.ts` runs it alone.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measureRounds } from "./timing.ts";
import { reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const USERS = Number(process.env.BENCH_ADMIN_USERS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ADMIN_ROUNDS ?? 15);

/** Target: every search page under 100 ms (median) on 100,000 users, well ahead of a scan. */
const TARGET_MEDIAN_MS = 100;
const TARGET_RATIO = 3;

export type { TargetLine } from "./child.ts";

export function benchAdminSearch(): Promise<TargetLine[]> {
  return runBenchChild(path.join(here, "admin-search.ts"), "admin search");
}

const measure = (fn: () => Promise<unknown>) => measureRounds(fn, ROUNDS);

async function runChild() {
  // The app logs queries over 200 ms; the naive baseline is meant to be slow, so keep them out.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes('"msg":"slow query')) return;
    warn(...args);
  };
  const { createMigratedDatabase, dropDatabase, uniqueName, databaseUrl } = await import("../tests/db.ts");
  const name = uniqueName("clib_bench_admin");
  await createMigratedDatabase(name);
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl(name),
    NODE_ENV: "test",
    SESSION_SECRET: "bench-session-secret-bench-session-secret",
    APP_URL: "http://127.0.0.1:3999",
    DATABASE_POOL_SIZE: "2",
  });
  const { db, Prisma } = await import("../app/db.server.ts");
  const { searchUsers } = await import("../app/models/admin-users.server.ts");
  try {
    const seedStart = performance.now();
    // Varied names and mail domains; every third user has a shop email and a support-platform id.
    await db.$executeRawUnsafe(`
      INSERT INTO users (id, email, full_name, patreon_id, discord_tag, mail_verified, created_at, updated_at)
      SELECT 'bench' || g,
             'user' || g || '@mail' || (g % 50) || '.example',
             (ARRAY['Anna','Ben','Chloe','David','Emma','Felix','Grace','Hugo','Iris','Jonas','Kira','Leo','Mia','Noah','Olga','Paul','Quinn','Rosa','Sam','Tara'])[1 + g % 20]
               || ' ' ||
             (ARRAY['Smith','Meyer','Garcia','Rossi','Novak','Dubois','Silva','Kowalski','Jensen','Murphy','Tanaka','Costa','Weber','Horvat','Larsen'])[1 + (g / 20) % 15]
               || ' ' || g,
             CASE WHEN g % 3 = 0 THEN 'pat' || g END,
             CASE WHEN g % 5 = 0 THEN 'disc' || g END,
             true,
             now() - g * interval '1 minute',
             now()
      FROM generate_series(1, ${USERS}) AS g`);
    await db.$executeRawUnsafe(`
      INSERT INTO shop_emails (id, user_id, email, verified_email, verified_at, created_at)
      SELECT 'bse' || g, 'bench' || g, 'buyer' || g || '@shop.example', 'buyer' || g || '@shop.example', now(), now()
      FROM generate_series(3, ${USERS}, 3) AS g`);
    await db.$executeRawUnsafe("ANALYZE users");
    await db.$executeRawUnsafe("ANALYZE shop_emails");
    const seeded = await db.user.count();
    console.log(`admin search: seeded ${seeded} users in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

    const someone = Math.floor(USERS * 0.54321);
    const cases: [string, string, number][] = [
      ["list, page 1 (no search)", "", 1],
      ["list, page 2000 (deep offset)", "", 2000],
      ["exact email", `user${someone}@mail${someone % 50}.example`, 1],
      ["email prefix", `user${Math.floor(someone / 10)}`, 1],
      ["email prefix, broad (~11% of users)", "user1", 1],
      ["name prefix, broad (~5% of users)", "anna", 1],
      ["full name", `Ben Smith 21`, 1],
      ["shop email prefix", `buyer${someone - (someone % 3)}`, 1],
      ["support-platform id", `pat${someone - (someone % 3)}`, 1],
      ["leak-trace number", String(someone), 1],
    ];
    const rows: string[] = [];
    let slowest = 0;
    for (const [label, search, page] of cases) {
      let total = 0;
      const time = await measure(async () => {
        const result = await searchUsers({ search, page, pageSize: 25 });
        total = result.total;
      });
      slowest = Math.max(slowest, time.median);
      rows.push(`  ${label.padEnd(40)} median ${time.median.toFixed(1).padStart(7)} ms   p95 ${time.p95.toFixed(1).padStart(7)} ms   (${total} matches)`);
    }
    console.log(`admin search over ${seeded} users, ${ROUNDS} rounds, one page of 25 (count included):`);
    for (const row of rows) console.log(row);

    // The naive alternative: substring match on every column, which must scan the whole table.
    const needle = `user${Math.floor(someone / 10)}`;
    const naive = await measure(() =>
      db.$queryRaw(Prisma.sql`
        SELECT u.id FROM users u
        WHERE u.email ILIKE ${`%${needle}%`} OR u.full_name ILIKE ${`%${needle}%`} OR u.patreon_id = ${needle}
           OR EXISTS (SELECT 1 FROM shop_emails s WHERE s.user_id = u.id AND s.email ILIKE ${`%${needle}%`})
        ORDER BY u.created_at DESC LIMIT 25`),
    );
    const indexed = await measure(() => searchUsers({ search: needle, page: 1, pageSize: 25 }));
    const ratio = naive.median / indexed.median;
    console.log(
      `  naive substring scan (ILIKE '%q%')          median ${naive.median.toFixed(1).padStart(7)} ms; indexed search is ${ratio.toFixed(1)}x faster`,
    );
    const targets = [
      {
        name: "admin search latency",
        ok: slowest < TARGET_MEDIAN_MS,
        text: `admin search: slowest median ${slowest.toFixed(1)} ms over ${seeded} users (target < ${TARGET_MEDIAN_MS} ms)`,
      },
      {
        name: "admin search vs scan",
        ok: ratio >= TARGET_RATIO,
        text: `admin search: ${ratio.toFixed(1)}x faster than a substring scan (target >= ${TARGET_RATIO}x)`,
      },
    ];
    reportTargets(targets);
  } finally {
    await db.$disconnect();
    await dropDatabase(name);
  }
}

await runAsScript(import.meta.url, runChild, benchAdminSearch);
