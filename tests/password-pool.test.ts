// bcrypt off the event loop: on it, 120 sign-ins with made-up emails would keep the single
// event loop busy for seconds. The hashing runs in worker threads, a full queue
// answers 503 with Retry-After, and the event loop stays free for everyone else.
import { getPriority } from "node:os";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { PASSWORD_WORKER_URL, PasswordPool, PasswordPoolBusyError, passwordPool, type PasswordWorkerReady } from "~/integrations/password-pool.server";
import { hashPassword, loginWithPassword } from "~/models/passwords.server";
import { db } from "~/db.server";
import * as loginRoute from "~/routes/api.auth.login";
import * as loginPage from "~/routes/login";
import { callRoute, readJsonBody } from "./helpers";
import { SCHED_OTHER, schedulingPolicy } from "./thread-policy";

const GLOBAL_KEY = Symbol.for("creator-library.password-pool");
const holder = globalThis as { [GLOBAL_KEY]?: Promise<PasswordPool> };

afterEach(() => {
  delete holder[GLOBAL_KEY];
});

describe("password worker pool", () => {
  it("hashes and compares in worker threads (the worker file resolves from the source tree)", async () => {
    const pool = await passwordPool();
    const hash = await hashPassword("Correct1!");
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(await pool.compare("Correct1!", hash)).toBe(true);
    expect(await pool.compare("Wrong1!", hash)).toBe(false);
  });

  async function readyOf(priority: "idle" | "low"): Promise<PasswordWorkerReady> {
    const worker = new Worker(PASSWORD_WORKER_URL, { workerData: { priority } });
    try {
      return await new Promise<PasswordWorkerReady>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
    } finally {
      await worker.terminate();
    }
  }

  it("hashes at a lower priority than the event loop, which keeps its own (page views go first on a busy machine)", async () => {
    const before = getPriority();
    const low = await readyOf("low");
    // PASSWORD_THREAD_NICE in password-worker.mjs; Linux keeps nice values per thread.
    expect(low).toMatchObject({ nice: Math.min(19, before + 10), policy: "normal" });
    expect(getPriority()).toBe(before);
  });

  it("with the production default, hashes only when a core is idle (SCHED_IDLE), and the event loop keeps its policy", async () => {
    expect(await readyOf("idle")).toMatchObject({ policy: "idle" });
    expect(schedulingPolicy("/proc/thread-self/stat")).toBe(SCHED_OTHER);
    const pool = new PasswordPool({ size: 1, maxQueue: 4, priority: "idle" });
    try {
      await pool.start();
      expect(await pool.compare("Correct1!", await pool.hash("Correct1!", 4))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("keeps the event loop free while many sign-ins with unknown emails run", async () => {
    await passwordPool();
    const before = performance.eventLoopUtilization();
    // Fewer than the queue holds (one worker on a 2-core machine: 1 running + 32 waiting).
    // 8 are plenty to tell a busy loop from a waiting one; 30 (and 12) took past 30 s at load 20+.
    const attempts = Array.from({ length: 8 }, (_, index) =>
      loginWithPassword({ email: `nobody-${index}-${Date.now()}@example.com`, password: "Whatever1!" }).then(
        () => "ok",
        (error: Error) => error.message,
      ),
    );
    const results = await Promise.all(attempts);
    const utilization = performance.eventLoopUtilization(before).utilization;
    // Each hears its answer; on a saturated machine a sign-in whose hash got no CPU within the
    // pool's answer wait hears "busy" instead of waiting (MAX_ANSWER_WAIT_MS).
    expect(results).toContain("Invalid email or password.");
    for (const result of results) expect(["Invalid email or password.", "The server is busy. Please try again in a few seconds."]).toContain(result);
    // bcrypt on the loop kept it ~100% busy; with the workers it mostly waits.
    expect(utilization).toBeLessThan(0.5);
    // bcrypt compares queue on one worker: seconds each when the machine is loaded.
  }, 180_000);

  it("a job no worker takes within the wait limit is refused as busy instead of hanging", async () => {
    // One worker, 40 ms of patience: a cost-12 hash (a few hundred ms anywhere) holds the worker.
    const slow = new PasswordPool({ size: 1, maxQueue: 4, priority: "low", maxQueueWaitMs: 40 });
    await slow.start();
    try {
      const running = slow.hash("holds-the-worker", 12);
      const waiting = slow.compare("x", "y");
      await expect(waiting).rejects.toBeInstanceOf(PasswordPoolBusyError);
      expect(slow.waiting).toBe(0);
      // The running job is not affected, and the pool takes new work once it is free.
      expect(await running).toMatch(/^\$2[aby]\$12\$/);
      expect(await slow.compare("holds-the-worker", await running)).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it("a job a starved thread took is refused as busy once its answer is overdue, instead of hanging", async () => {
    // One worker, 40 ms of patience for an answer: a cost-14 hash takes far longer anywhere.
    const pool = new PasswordPool({ size: 1, maxQueue: 4, priority: "low", maxAnswerWaitMs: 40 });
    await pool.start();
    try {
      await expect(pool.hash("overdue", 14)).rejects.toBeInstanceOf(PasswordPoolBusyError);
      expect(pool.waiting).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it("a job asked for within a request's password budget answers busy once the budget is spent, and at once when it already is", async () => {
    // The request's budget, not the pool's own bound (none here), limits the wait: a cost-14 hash
    // takes far longer than the 40 ms left, and a request with nothing left is refused before any work.
    let answerBy: number | undefined;
    const pool = new PasswordPool({ size: 1, maxQueue: 4, priority: "low", answerBy: () => answerBy });
    await pool.start();
    try {
      answerBy = performance.now() + 40;
      await expect(pool.hash("over-budget", 14)).rejects.toBeInstanceOf(PasswordPoolBusyError);
      answerBy = performance.now() - 1;
      await expect(pool.compare("spent", "$2b$04$abcdefghijklmnopqrstuu")).rejects.toBeInstanceOf(PasswordPoolBusyError);
      expect(pool.waiting).toBe(0);
      // Outside a request's scope the pool answers as before.
      answerBy = undefined;
      expect(await pool.hash("no-budget", 4)).toMatch(/^\$2[aby]\$04\$/);
    } finally {
      await pool.close();
    }
  });

  it("a full queue refuses at once: the sign-in answers 503 with Retry-After", async () => {
    // In production the pool comes from the server bundle's copy of the module, not the app's:
    // the refusal must not depend on which copy's error class it throws.
    const copy = "../app/integrations/password-pool.server.ts?second-copy";
    const other = (await import(/* @vite-ignore */ copy)) as typeof import("~/integrations/password-pool.server");
    expect(other.PasswordPool).not.toBe(PasswordPool);
    // Its one thread takes a job and never answers, so one job running and one waiting fill it
    // until the end of the test (a real hash would end on its own, sooner on a fast machine).
    const tiny = new other.PasswordPool({
      size: 1,
      maxQueue: 1,
      maxQueueWaitMs: 60_000,
      workerUrl: new URL("./fixtures/unanswering-password-worker.mjs", import.meta.url),
    });
    await tiny.start();
    holder[GLOBAL_KEY] = Promise.resolve(tiny);
    const fillers = [tiny.hash("filler-one", 4), tiny.hash("filler-two", 4)].map((job) =>
      job.then(
        () => "answered",
        (error: Error) => error.message,
      ),
    );
    await expect(tiny.compare("x", "y")).rejects.toBeInstanceOf(other.PasswordPoolBusyError);
    await expect(tiny.compare("x", "y")).rejects.not.toBeInstanceOf(PasswordPoolBusyError);
    const response = await callRoute(loginRoute, { method: "POST", path: "/api/auth/login", json: { email: "busy@example.com", password: "Whatever1!" } });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("5");
    expect(await readJsonBody(response)).toEqual({ error: "The server is busy. Please try again in a few seconds." });
    // The /login form and sign-up hear the same, also without JavaScript.
    for (const form of <Record<string, string>[]>[
      { intent: "login", email: "busy@example.com", password: "Whatever1!" },
      { intent: "signup", email: "busy-new@example.com", password: "Whatever1!", confirmPassword: "Whatever1!" },
    ]) {
      const page = await callRoute(loginPage, { method: "POST", path: "/login", form });
      expect(page.status).toBe(503);
      expect(page.headers.get("Retry-After")).toBe("5");
      expect((await readJsonBody<{ errors: Record<string, string> }>(page)).errors.form).toBe("The server is busy. Please try again in a few seconds.");
    }
    expect(await db.user.count({ where: { email: "busy-new@example.com" } })).toBe(0);
    await tiny.close();
    expect(await Promise.all(fillers)).toEqual(["password worker exited", "password pool is closed"]);
  });

  it("a worker file that cannot load makes start() fail", async () => {
    const broken = new PasswordPool({ size: 1, maxQueue: 1, workerUrl: new URL("./no-such-worker.mjs", import.meta.url) });
    await expect(broken.start()).rejects.toThrow();
  });
});
