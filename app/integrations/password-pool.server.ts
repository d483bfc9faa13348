// bcrypt off the event loop: a few worker threads (password-worker.mjs) with a bounded queue.
// Every sign-in costs ~70 ms of CPU; on the event loop 120 sign-ins with made-up emails froze
// the whole server for seconds. When every worker is busy and the queue is full, callers get a
// refusal at once (503 + Retry-After) instead of waiting behind an attacker.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { env } from "../env.server.ts";
import { passwordAnswerDeadline } from "../request-context.server.ts";
import { errorFields, log } from "~/logger.server";

/** The worker file: beside this module in the source tree, beside build/index.js after a build. */
export const PASSWORD_WORKER_URL = new URL("./password-worker.mjs", import.meta.url);

/** One core stays with the event loop; at most 4 workers. */
export const DEFAULT_POOL_SIZE = Math.max(1, Math.min(4, availableParallelism() - 1));
/** Waiting jobs per worker: ~2 s of bcrypt work at most before a caller hears "busy". */
export const QUEUE_PER_WORKER = 32;
export const BUSY_RETRY_AFTER_SECONDS = 5;
/**
 * How long a job may wait for a worker before the caller hears "busy". The queue's length bounds
 * the wait while the threads get CPU; on a saturated machine idle-priority threads may get almost
 * none (PASSWORD_THREAD_PRIORITY), and a sign-in should then hear "try again" rather than hang.
 */
export const MAX_QUEUE_WAIT_MS = 10_000;
/**
 * How long a sign-in waits for its answer in production before it hears "busy": a job a yielding
 * thread took but gets no CPU for (a saturated machine), and that the aged lane has not started
 * either, is refused then, so an overloaded server answers sign-ins within about a second and a
 * half instead of after many (the overload benchmark, bench/overload.ts).
 */
export const MAX_ANSWER_WAIT_MS = 1_500;

export const PASSWORD_POOL_BUSY = "password_pool_busy";

/**
 * Aging (docs/decisions/014-password-threads-yield.md): a job not finished this long after it
 * was asked for is also given to the pool's aged lane, one thread at the process's own (normal)
 * priority, so a sign-in does not wait seconds for an idle core on a saturated machine. Below
 * this a sign-in waits for the yielding threads as before, and page views go first.
 */
export const AGED_AFTER_MS = 300;
/**
 * The aged lane's bound: at most this share of one core, counted from the CPU each of its jobs
 * used (after a job of c ms started, the next starts no sooner than c / share ms later). A flood
 * of sign-ins then takes at most half a core per process from page views, whatever their number
 * (docs/decisions/014 measures the trade between the two).
 */
export const AGED_CPU_SHARE = 0.5;

/**
 * A full queue. In production this module exists twice (see `passwordPool`) and the pool may
 * throw the other copy's class, so callers recognise it by its `code` (`isPasswordPoolBusy`),
 * never by `instanceof`; the models answer it as a refusal (503 + Retry-After).
 */
export class PasswordPoolBusyError extends Error {
  readonly code = PASSWORD_POOL_BUSY;
  readonly retryAfterSeconds = BUSY_RETRY_AFTER_SECONDS;
  constructor() {
    super("The server is busy. Please try again in a few seconds.");
    this.name = "PasswordPoolBusyError";
  }
}

export function isPasswordPoolBusy(error: unknown): error is { message: string; retryAfterSeconds: number } {
  return error instanceof Error && (error as { code?: unknown }).code === PASSWORD_POOL_BUSY;
}

/** PASSWORD_THREAD_PRIORITY: how the threads yield to the event loops (password-worker.mjs). */
export type PasswordThreadPriority = "idle" | "low";
/** What a thread is started with: the pool's priority, or "normal" for the aged lane. */
type ThreadPriority = PasswordThreadPriority | "normal";

/** What a worker says once it has loaded bcrypt: the nice value and scheduling policy it runs at. */
export type PasswordWorkerReady = { ready: true; nice: number; policy: "idle" | "normal" | "other" };

type Job = {
  message: { op: "hash"; password: string; rounds: number } | { op: "compare"; password: string; hash: string };
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Refuses the job as busy if no worker took it within maxQueueWaitMs. */
  expiry: ReturnType<typeof setTimeout>;
  /** Hands the job to the aged lane once it has waited agedAfterMs (none without aging). */
  aging?: ReturnType<typeof setTimeout>;
  /** Threads running it now: a yielding thread, and after aging perhaps the aged lane too. */
  runners: number;
  /** Refuses the job as busy if it has no answer within maxAnswerWaitMs and the aged lane is not running it. */
  deadline?: ReturnType<typeof setTimeout>;
  /** The aged lane (normal priority) runs it: it will answer soon, so the deadline lets it. */
  onAgedLane: boolean;
  settled: boolean;
};
type Slot = { worker: Worker; job: Job | null; aged: boolean; ready?: PasswordWorkerReady; startedAt: number };

/** What the aged lane did so far (tests and benchmarks read it). */
export type AgedLaneStats = { runs: number; cpuMs: number };

export type PasswordPoolOptions = {
  /** Worker threads (default: one per core but one, at most 4). */
  size?: number;
  /** Jobs that may wait for a thread (default 32 per thread); more are refused as busy. */
  maxQueue?: number;
  /** How the threads yield to the event loop (decision 014; default "low", the server passes its setting). */
  priority?: PasswordThreadPriority;
  /** How long a job may wait for a thread before it is refused as busy. */
  maxQueueWaitMs?: number;
  /**
   * How long a job may take to answer before it is refused as busy, unless the aged lane runs it
   * (default null: a job a thread took answers when it ends).
   */
  maxAnswerWaitMs?: number | null;
  /**
   * Aging: a job not finished this long after it was asked for also runs on the aged lane, one
   * more thread at normal priority (AGED_AFTER_MS in production; default null: no aged lane).
   */
  agedAfterMs?: number | null;
  /** The aged lane's bound, a share of one core (default AGED_CPU_SHARE). */
  agedCpuShare?: number;
  /**
   * By when (a `performance.now()` instant) the job being asked for must answer, from its
   * request's own budget (default none): a job asked for too late is refused at once, and one not
   * answered by then hears "busy" like one past maxAnswerWaitMs.
   */
  answerBy?: () => number | undefined;
  /** The clock the aged lane's bound reads (default `performance.now`; a test may step it by hand). */
  laneClock?: () => number;
  workerUrl?: URL;
};

export class PasswordPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** Jobs past agedAfterMs and not finished, for the aged lane (some also run on a yielding thread). */
  private readonly agedQueue: Job[] = [];
  /** When the aged lane may take its next job (its CPU bound), and the timer that waits for it. */
  private agedRestUntil = 0;
  private agedWake: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  readonly size: number;
  readonly maxQueue: number;
  readonly priority: PasswordThreadPriority;
  readonly maxQueueWaitMs: number;
  readonly maxAnswerWaitMs: number | null;
  readonly agedAfterMs: number | null;
  readonly agedCpuShare: number;
  readonly agedStats: AgedLaneStats = { runs: 0, cpuMs: 0 };
  private readonly answerBy: () => number | undefined;
  private readonly laneClock: () => number;
  private readonly workerUrl: URL;

  constructor(options: PasswordPoolOptions = {}) {
    this.size = options.size ?? DEFAULT_POOL_SIZE;
    this.maxQueue = options.maxQueue ?? this.size * QUEUE_PER_WORKER;
    this.priority = options.priority ?? "low";
    this.maxQueueWaitMs = options.maxQueueWaitMs ?? MAX_QUEUE_WAIT_MS;
    this.maxAnswerWaitMs = options.maxAnswerWaitMs ?? null;
    this.agedAfterMs = options.agedAfterMs ?? null;
    this.agedCpuShare = Math.min(1, Math.max(0.01, options.agedCpuShare ?? AGED_CPU_SHARE));
    this.answerBy = options.answerBy ?? (() => undefined);
    this.laneClock = options.laneClock ?? (() => performance.now());
    this.workerUrl = options.workerUrl ?? PASSWORD_WORKER_URL;
  }

  /** Starts every worker (and the aged lane's) and waits until each has loaded bcrypt; rejects when one cannot. */
  async start(): Promise<void> {
    const threads = Array.from({ length: this.size }, () => this.spawn(false));
    if (this.agedAfterMs !== null) threads.push(this.spawn(true));
    await Promise.all(threads);
  }

  /** What each thread said when it was ready (its nice value and policy), and whether it is the aged lane. */
  get threads(): (PasswordWorkerReady & { aged: boolean })[] {
    return this.slots.map((slot) => ({ ...slot.ready!, aged: slot.aged }));
  }

  private spawn(aged: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      let worker: Worker;
      const priority: ThreadPriority = aged ? "normal" : this.priority;
      try {
        worker = new Worker(this.workerUrl, { workerData: { priority } });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      // Idle workers do not keep a process (a test run, a script) alive.
      worker.unref();
      const slot: Slot = { worker, job: null, aged, startedAt: 0 };
      let ready = false;
      worker.on(
        "message",
        (message: (PasswordWorkerReady & { ok?: undefined }) | { ready?: undefined; ok: boolean; result?: unknown; error?: string; cpuMs?: number }) => {
          if (message.ready) {
            ready = true;
            slot.ready = message;
            this.slots.push(slot);
            resolve();
            this.dispatch();
            return;
          }
          const job = slot.job;
          slot.job = null;
          if (slot.aged) {
            // The bound: the next job starts no sooner than cpu / share after this one started,
            // so the lane never uses more than its share of a core (a job slowed down by a busy
            // machine has already taken that long, and the next may start at once).
            const cpuMs = Math.max(0, message.cpuMs ?? 0);
            this.agedStats.runs += 1;
            this.agedStats.cpuMs += cpuMs;
            this.agedRestUntil = slot.startedAt + cpuMs / this.agedCpuShare;
          }
          if (job) {
            job.runners -= 1;
            if (message.ok) this.settle(job, () => job.resolve(message.result));
            else this.settle(job, () => job.reject(new Error(message.error ?? "password worker failed")));
          }
          this.dispatch();
        },
      );
      const fail = (error: Error) => {
        const job = slot.job;
        slot.job = null;
        if (!job) return;
        job.runners -= 1;
        // A copy still running on another thread may yet answer.
        if (job.runners === 0) this.settle(job, () => job.reject(error));
      };
      worker.on("error", (error) => {
        if (!ready) reject(error);
        fail(error);
      });
      worker.on("exit", () => {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots.splice(index, 1);
        if (!ready) reject(new Error("password worker exited before it was ready"));
        fail(new Error("password worker exited"));
        // A worker that died after starting is replaced; the pool keeps its size.
        if (ready && !this.closed) this.spawn(aged).catch((error: unknown) => log().error(errorFields(error), "password worker could not be restarted"));
        this.dispatch();
      });
    });
  }

  /** Answers a job once (a second copy's answer is dropped) and forgets it. */
  private settle(job: Job, answer: () => void) {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.expiry);
    clearTimeout(job.aging);
    clearTimeout(job.deadline);
    this.remove(this.queue, job);
    this.remove(this.agedQueue, job);
    answer();
  }

  private remove(list: Job[], job: Job) {
    const index = list.indexOf(job);
    if (index >= 0) list.splice(index, 1);
  }

  private dispatch() {
    for (const slot of this.slots) {
      if (slot.job) continue;
      // The aged lane takes only jobs past the bound, and only within its share of a core.
      const list = slot.aged ? this.agedQueue : this.queue;
      if (list.length === 0) continue;
      if (slot.aged) {
        const rest = this.agedRestUntil - this.laneClock();
        if (rest > 0) {
          if (!this.agedWake) {
            this.agedWake = setTimeout(() => {
              this.agedWake = undefined;
              this.dispatch();
            }, Math.ceil(rest));
            this.agedWake.unref();
          }
          continue;
        }
      }
      const job = list.shift()!;
      // Taken: no longer waiting, nor refused as busy. An aged job a yielding thread takes stays
      // in the aged queue: that thread may get no CPU, and the aged lane may still run it.
      clearTimeout(job.expiry);
      this.remove(this.queue, job);
      job.runners += 1;
      if (slot.aged) job.onAgedLane = true;
      slot.job = job;
      slot.startedAt = this.laneClock();
      slot.worker.postMessage(job.message);
    }
  }

  private run<T>(message: Job["message"]): Promise<T> {
    if (this.closed) return Promise.reject(new Error("password pool is closed"));
    if (this.queue.length >= this.maxQueue) return Promise.reject(new PasswordPoolBusyError());
    const answerWaitMs = this.answerWaitMs();
    if (answerWaitMs !== null && answerWaitMs <= 0) return Promise.reject(new PasswordPoolBusyError());
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        message,
        resolve: resolve as (value: unknown) => void,
        reject,
        runners: 0,
        onAgedLane: false,
        settled: false,
        expiry: setTimeout(() => {
          // Only a job no thread has taken is refused; a running one answers when it ends.
          if (!this.queue.includes(job)) return;
          this.settle(job, () => reject(new PasswordPoolBusyError()));
        }, this.maxQueueWaitMs),
      };
      // A waiting sign-in does not keep a finished script alive.
      job.expiry.unref();
      if (answerWaitMs !== null) {
        job.deadline = setTimeout(() => {
          // A thread that gets no CPU may still finish it: its answer is then dropped (settled).
          if (job.settled || job.onAgedLane) return;
          this.settle(job, () => reject(new PasswordPoolBusyError()));
        }, answerWaitMs);
        job.deadline.unref();
      }
      if (this.agedAfterMs !== null) {
        job.aging = setTimeout(() => {
          // Still waiting, or still running on a yielding thread that gets no CPU: the aged lane
          // runs it too (bcrypt has no side effects), and the first answer counts.
          if (job.settled || this.agedQueue.includes(job)) return;
          this.agedQueue.push(job);
          this.dispatch();
        }, this.agedAfterMs);
        job.aging.unref();
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** How long a job asked for now may take to answer: the pool's bound or what is left of its request's budget. */
  private answerWaitMs(): number | null {
    const answerBy = this.answerBy();
    const left = answerBy === undefined ? null : answerBy - performance.now();
    if (left === null) return this.maxAnswerWaitMs;
    return this.maxAnswerWaitMs === null ? left : Math.min(this.maxAnswerWaitMs, left);
  }

  hash(password: string, rounds: number): Promise<string> {
    return this.run({ op: "hash", password, rounds });
  }

  compare(password: string, hash: string): Promise<boolean> {
    return this.run({ op: "compare", password, hash });
  }

  /** Jobs waiting for a worker (not counting those running). */
  get waiting(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.agedWake);
    for (const job of [...this.queue, ...this.agedQueue]) this.settle(job, () => job.reject(new Error("password pool is closed")));
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}

// One pool per process, shared by the app build and the HTTP server bundle (two copies of this
// module in production: build/index.js and build/server.js).
const GLOBAL_KEY = Symbol.for("creator-library.password-pool");
type PoolHolder = { [GLOBAL_KEY]?: Promise<PasswordPool> };

/** The process's pool, started on first use (server/index.ts starts it before listening). */
export function passwordPool(): Promise<PasswordPool> {
  const holder = globalThis as PoolHolder;
  if (!holder[GLOBAL_KEY]) {
    const pool = new PasswordPool({
      priority: env().PASSWORD_THREAD_PRIORITY,
      agedAfterMs: AGED_AFTER_MS,
      maxAnswerWaitMs: MAX_ANSWER_WAIT_MS,
      answerBy: passwordAnswerDeadline,
    });
    const started = pool.start().then(() => pool);
    // A failed start is not cached: the next call tries again (and fails loudly again).
    started.catch(() => {
      if (holder[GLOBAL_KEY] === started) delete holder[GLOBAL_KEY];
    });
    holder[GLOBAL_KEY] = started;
  }
  return holder[GLOBAL_KEY];
}
