// Aging in the password pool (decision 014): the hashing threads yield to page views, but a
// sign-in that has waited past the bound also runs on the aged lane, one thread at normal
// priority whose share of a core is bounded, so it does not wait seconds on a saturated machine.
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism, getPriority } from "node:os";
import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { AGED_AFTER_MS, PasswordPool, passwordPool } from "~/integrations/password-pool.server";

/** bcrypt (cost 10) of "not-a-real-password": about 70-120 ms of CPU per compare. */
const COST_10_HASH = "$2b$10$ap/sRcsAiF//AxEPSTSrJOlX3Vve2W8M96c9u3UMKI9lHf11.oxW6";

const GLOBAL_KEY = Symbol.for("creator-library.password-pool");
const holder = globalThis as { [GLOBAL_KEY]?: Promise<PasswordPool> };

const pools: PasswordPool[] = [];
const hogs: ChildProcess[] = [];

afterEach(async () => {
  for (const hog of hogs.splice(0)) hog.kill("SIGKILL");
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  delete holder[GLOBAL_KEY];
});

async function started(pool: PasswordPool): Promise<PasswordPool> {
  pools.push(pool);
  await pool.start();
  return pool;
}

/** Busy processes at normal priority on every core: SCHED_IDLE threads then get (almost) no CPU. */
async function saturateCores() {
  for (let core = 0; core < availableParallelism(); core++) {
    const hog = spawn(process.execPath, ["-e", "process.stdout.write('go'); for (;;) {}"], { stdio: ["ignore", "pipe", "ignore"] });
    hogs.push(hog);
    await new Promise((resolve) => hog.stdout!.once("data", resolve));
  }
}

/** The promise's value, or "pending" if it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  return Promise.race([promise, new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms))]);
}

describe("password pool aging", () => {
  it("the server's pool has an aged lane at the process's own priority beside its yielding threads", async () => {
    const pool = await passwordPool();
    expect(pool.agedAfterMs).toBe(AGED_AFTER_MS);
    const aged = pool.threads.filter((thread) => thread.aged);
    expect(aged).toEqual([expect.objectContaining({ policy: "normal", nice: getPriority() })]);
    expect(pool.threads.filter((thread) => !thread.aged)).toHaveLength(pool.size);
  });

  it("on saturated cores, a sign-in that waited past the bound runs at normal priority instead of waiting for an idle core", async () => {
    const yielding = await started(new PasswordPool({ size: 1, priority: "idle" }));
    expect(yielding.threads.map(({ policy }) => policy)).toEqual(["idle"]);
    const aging = await started(new PasswordPool({ size: 1, priority: "idle", agedAfterMs: 100 }));
    expect(aging.threads.map(({ aged, policy }) => ({ aged, policy })).sort((a, b) => Number(a.aged) - Number(b.aged))).toEqual([
      { aged: false, policy: "idle" },
      { aged: true, policy: "normal" },
    ]);
    await saturateCores();
    // Both jobs go to a SCHED_IDLE thread first; only the aging pool also runs its job elsewhere.
    const withoutAging = yielding.compare("not-a-real-password", COST_10_HASH);
    const withAging = aging.compare("not-a-real-password", COST_10_HASH);
    expect(await within(withAging, 4_000)).toBe(true);
    expect(aging.agedStats.runs).toBe(1);
    // The control: when the aged lane answered, the same job without aging was still waiting for
    // an idle core (so the cores really were saturated, and the aged lane is what answered).
    expect(await within(withoutAging, 0)).toBe("pending");
    for (const hog of hogs.splice(0)) hog.kill("SIGKILL");
    // Once the cores are free again, the starved copy ends (its answer is dropped) and the pool goes on.
    expect(await withoutAging).toBe(true);
    expect(await aging.compare("wrong", COST_10_HASH)).toBe(false);
    expect(aging.waiting).toBe(0);
  }, 60_000);

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
