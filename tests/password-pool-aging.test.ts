// Aging in the password pool (decision 014): the hashing threads yield to page views, but a
// sign-in that has waited past the bound also runs on the aged lane, one thread at normal
// priority whose share of a core is bounded, so it does not wait seconds on a saturated machine.
// What it does on a saturated machine is measured by the sign-in burst of bench/release-day.ts:
// whether a SCHED_IDLE thread is starved by busy processes depends on the host's scheduler
// setup, too much for a test that must pass on every machine.
import { getPriority } from "node:os";
import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { AGED_AFTER_MS, PasswordPool, passwordPool } from "~/integrations/password-pool.server";

/** bcrypt (cost 10) of "not-a-real-password": about 70-120 ms of CPU per compare. */
const COST_10_HASH = "$2b$10$ap/sRcsAiF//AxEPSTSrJOlX3Vve2W8M96c9u3UMKI9lHf11.oxW6";

const GLOBAL_KEY = Symbol.for("creator-library.password-pool");
const holder = globalThis as { [GLOBAL_KEY]?: Promise<PasswordPool> };

const pools: PasswordPool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  delete holder[GLOBAL_KEY];
});

async function started(pool: PasswordPool): Promise<PasswordPool> {
  pools.push(pool);
  await pool.start();
  return pool;
}

describe("password pool aging", () => {
  it("the server's pool has an aged lane at the process's own priority beside its yielding threads", async () => {
    const pool = await passwordPool();
    expect(pool.agedAfterMs).toBe(AGED_AFTER_MS);
    const aged = pool.threads.filter((thread) => thread.aged);
    expect(aged).toEqual([expect.objectContaining({ policy: "normal", nice: getPriority() })]);
    expect(pool.threads.filter((thread) => !thread.aged)).toHaveLength(pool.size);
  });

  it("a job answered within the bound never reaches the aged lane", async () => {
    const pool = await started(new PasswordPool({ size: 1, priority: "low", agedAfterMs: 5_000 }));
    expect(await pool.compare("not-a-real-password", COST_10_HASH)).toBe(true);
    expect(pool.agedStats.runs).toBe(0);
  }, 30_000);

  it("the aged lane keeps to its share of a core: a job of c ms of CPU holds the next one back until c / share after its start", async () => {
    const share = 0.25;
    // No yielding thread at all: every job waits for the bound and then runs on the aged lane.
    const pool = await started(new PasswordPool({ size: 0, maxQueue: 8, priority: "low", agedAfterMs: 50, agedCpuShare: share }));
    const asked = performance.now();
    const answers = await Promise.all(
      [0, 1, 2].map(() => pool.compare("not-a-real-password", COST_10_HASH).then((ok) => ({ ok, at: performance.now(), cpuMs: pool.agedStats.cpuMs }))),
    );
    expect(answers.map((answer) => answer.ok)).toEqual([true, true, true]);
    expect(pool.agedStats.runs).toBe(3);
    answers.sort((a, b) => a.at - b.at);
    // The lane's CPU before its last job, which the bound spreads out (10 ms ticks: never 0 for bcrypt).
    const cpuBeforeLast = answers[1]!.cpuMs;
    expect(cpuBeforeLast).toBeGreaterThan(0);
    // The last job started cpuBeforeLast / share after the first at the earliest (10 ms of slack for timers).
    expect(answers[2]!.at - asked).toBeGreaterThanOrEqual(50 + cpuBeforeLast / share - 10);
  }, 60_000);
});
