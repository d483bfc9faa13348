// Aging in the password pool (decision 014): the hashing threads yield to page views, but a
// sign-in that has waited past the bound also runs on the aged lane, one thread at normal
// priority whose share of a core is bounded, so it does not wait seconds on a saturated machine.
// What it does on a saturated machine is measured by the sign-in burst of bench/release-day.ts:
// whether a SCHED_IDLE thread is starved by busy processes depends on the host's scheduler
// setup, too much for a test that must pass on every machine.
import { getPriority } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
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

  it("the aged lane keeps to its share of a core: after a job of c ms of CPU, the next starts no sooner than c / share after it", async () => {
    const share = 0.25;
    // The lane's bound reads this clock, stepped by hand: the bound is decided by the CPU each job
    // reports, never by how fast this machine runs.
    let laneNow = 1_000;
    // No yielding thread at all: every job waits for the bound and then runs on the aged lane.
    const pool = await started(new PasswordPool({ size: 0, maxQueue: 8, priority: "low", agedAfterMs: 50, agedCpuShare: share, laneClock: () => laneNow }));
    const answered: boolean[] = [];
    const jobs = [0, 1].map((index) => pool.compare("not-a-real-password", COST_10_HASH).then((ok) => (answered[index] = ok)));
    await vi.waitFor(() => expect(pool.agedStats.runs).toBe(1), { timeout: 30_000, interval: 20 });
    // The first job's CPU (10 ms ticks: never 0 for bcrypt) sets when the lane may start again.
    const cpuMs = pool.agedStats.cpuMs;
    expect(cpuMs).toBeGreaterThan(0);
    const mayStartAt = 1_000 + cpuMs / share;

    // Just before that instant the lane stays idle, however often it wakes (it wakes within
    // cpuMs / share of real time; waiting for three such wakes).
    laneNow = mayStartAt - 1;
    await new Promise((resolve) => setTimeout(resolve, 3 * Math.ceil(cpuMs / share)));
    expect(pool.agedStats.runs).toBe(1);
    expect(answered.filter((ok) => ok !== undefined)).toHaveLength(1);

    // From that instant on, it takes the second job.
    laneNow = mayStartAt;
    await Promise.all(jobs);
    expect(answered).toEqual([true, true]);
    expect(pool.agedStats.runs).toBe(2);
  }, 60_000);
});
