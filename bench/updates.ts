// Benchmark: "Updates for you" for one user with 1,000 posts and 10,000 download records, through
// the real model function (listMyUpdates) and the page loader's work. A fresh database per run, in a
// child process so its connections never mix with other benchmarks. Prints median and p95.
// `node --import tsx bench/updates.ts` runs it alone.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measure as measureRounds, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_UPDATES_ROUNDS ?? 30);

/** Target: the updates view answers in under 100 ms (median) for such a user. */
const TARGET_MEDIAN_MS = 100;

export type { TargetLine } from "./child.ts";

export function benchUpdates(): Promise<TargetLine[]> {
  return runBenchChild(path.join(here, "updates.ts"), "updates");
}

// The first run loads the library snapshot once, as a running server has it.
const measure = (fn: () => Promise<unknown>) => measureRounds(fn, ROUNDS);

async function runChild() {
  const { createMigratedDatabase, dropDatabase, uniqueName, databaseUrl } = await import("../tests/db.ts");
  const name = uniqueName("clib_bench_updates");
  await createMigratedDatabase(name);
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl(name),
    NODE_ENV: "test",
    SESSION_SECRET: "bench-session-secret-bench-session-secret",
    APP_URL: "http://127.0.0.1:3999",
    DATABASE_POOL_SIZE: "2",
  });
  const { db } = await import("../app/db.server.ts");
  const { listMyUpdates } = await import("../app/models/my-library.server.ts");
  const { createUserSession } = await import("../app/models/session.server.ts");
  const { requireUser } = await import("../app/session-guards.server.ts");
  const { createTiers, TIER_2 } = await import("../tests/library-fixtures.ts");
  const { seedUpdatesLibrary } = await import("../tests/updates-seed.ts");
  try {
    await createTiers();
    const user = await db.user.create({ data: { email: "bench-updates@example.com", currentTierId: TIER_2, tosAccepted: true, mailVerified: true } });
    await seedUpdatesLibrary(db, user.id, { posts: 1000, downloads: 10_000 });
    const cookie = (await createUserSession(user.id)).split(";")[0]!;
    let count = 0;
    const model = await measure(async () => {
      count = (await listMyUpdates(user)).length;
    });
    const page = await measure(async () => {
      // What the page's loader does (the route module itself imports CSS, which Node cannot load).
      const request = new Request("http://127.0.0.1:3999/account/updates", { headers: { Cookie: cookie } });
      JSON.stringify(await listMyUpdates(await requireUser(request)));
    });
    console.log(`updates for you: 1000 posts, 10000 download records, ${count} updates listed, ${ROUNDS} rounds:`);
    console.log(`  listMyUpdates                 median ${model.median.toFixed(1).padStart(7)} ms   p95 ${model.p95.toFixed(1).padStart(7)} ms`);
    console.log(`  session + updates (page)      median ${page.median.toFixed(1).padStart(7)} ms   p95 ${page.p95.toFixed(1).padStart(7)} ms`);
    const targets = [
      {
        name: "updates view latency",
        ok: page.median < TARGET_MEDIAN_MS,
        text: `updates view: median ${page.median.toFixed(1)} ms (target < ${TARGET_MEDIAN_MS} ms)`,
      },
    ];
    reportTargets(targets);
  } finally {
    await db.$disconnect();
    await dropDatabase(name);
  }
}

await runAsScript(import.meta.url, runChild, benchUpdates);
