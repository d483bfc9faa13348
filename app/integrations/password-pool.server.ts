// bcrypt off the event loop: a few worker threads (password-worker.mjs) with a bounded queue.
// Every sign-in costs ~70 ms of CPU; on the event loop 120 sign-ins with made-up emails froze
// the whole server for seconds. When every worker is busy and the queue is full, callers get a
// refusal at once (503 + Retry-After) instead of waiting behind an attacker.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { env } from "../env.server.ts";

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

export const PASSWORD_POOL_BUSY = "password_pool_busy";

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

/** What a worker says once it has loaded bcrypt: the nice value and scheduling policy it runs at. */
export type PasswordWorkerReady = { ready: true; nice: number; policy: "idle" | "normal" | "other" };

type Job = {
  message: { op: "hash"; password: string; rounds: number } | { op: "compare"; password: string; hash: string };
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Refuses the job as busy if no worker took it within maxQueueWaitMs. */
  expiry: ReturnType<typeof setTimeout>;
};
type Slot = { worker: Worker; job: Job | null };

export type PasswordPoolOptions = {
  /** Worker threads (default: one per core but one, at most 4). */
  size?: number;
  /** Jobs that may wait for a thread (default 32 per thread); more are refused as busy. */
  maxQueue?: number;
  /** How the threads yield to the event loop (decision 014; default "low", the server passes its setting). */
  priority?: PasswordThreadPriority;
  /** How long a job may wait for a thread before it is refused as busy. */
  maxQueueWaitMs?: number;
  workerUrl?: URL;
};

export class PasswordPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private closed = false;

  readonly size: number;
  readonly maxQueue: number;
  readonly priority: PasswordThreadPriority;
  readonly maxQueueWaitMs: number;
  private readonly workerUrl: URL;

  constructor(options: PasswordPoolOptions = {}) {
    this.size = options.size ?? DEFAULT_POOL_SIZE;
    this.maxQueue = options.maxQueue ?? this.size * QUEUE_PER_WORKER;
    this.priority = options.priority ?? "low";
    this.maxQueueWaitMs = options.maxQueueWaitMs ?? MAX_QUEUE_WAIT_MS;
    this.workerUrl = options.workerUrl ?? PASSWORD_WORKER_URL;
  }

  /** Starts every worker and waits until each has loaded bcrypt; rejects when one cannot. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.spawn()));
  }

  private spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      let worker: Worker;
      try {
        worker = new Worker(this.workerUrl, { workerData: { priority: this.priority } });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      // Idle workers do not keep a process (a test run, a script) alive.
      worker.unref();
      const slot: Slot = { worker, job: null };
      let ready = false;
      worker.on("message", (message: { ready?: true; ok?: boolean; result?: unknown; error?: string }) => {
        if (message.ready) {
          ready = true;
          this.slots.push(slot);
          resolve();
          this.dispatch();
          return;
        }
        const job = slot.job;
        slot.job = null;
        if (job) {
          if (message.ok) job.resolve(message.result);
          else job.reject(new Error(message.error ?? "password worker failed"));
        }
        this.dispatch();
      });
      worker.on("error", (error) => {
        if (!ready) reject(error);
        slot.job?.reject(error);
        slot.job = null;
      });
      worker.on("exit", () => {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots.splice(index, 1);
        if (!ready) reject(new Error("password worker exited before it was ready"));
        slot.job?.reject(new Error("password worker exited"));
        // A worker that died after starting is replaced; the pool keeps its size.
        if (ready && !this.closed) this.spawn().catch((error) => console.error("password worker could not be restarted", error));
      });
    });
  }

  private dispatch() {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      clearTimeout(job.expiry);
      slot.job = job;
      slot.worker.postMessage(job.message);
    }
  }

  private run<T>(message: Job["message"]): Promise<T> {
    if (this.closed) return Promise.reject(new Error("password pool is closed"));
    if (this.queue.length >= this.maxQueue) return Promise.reject(new PasswordPoolBusyError());
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        message,
        resolve: resolve as (value: unknown) => void,
        reject,
        expiry: setTimeout(() => {
          const index = this.queue.indexOf(job);
          if (index < 0) return;
          this.queue.splice(index, 1);
          reject(new PasswordPoolBusyError());
        }, this.maxQueueWaitMs),
      };
      // A waiting sign-in does not keep a finished script alive.
      job.expiry.unref();
      this.queue.push(job);
      this.dispatch();
    });
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
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.expiry);
      job.reject(new Error("password pool is closed"));
    }
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
    const pool = new PasswordPool({ priority: env().PASSWORD_THREAD_PRIORITY });
    const started = pool.start().then(() => pool);
    // A failed start is not cached: the next call tries again (and fails loudly again).
    started.catch(() => {
      if (holder[GLOBAL_KEY] === started) delete holder[GLOBAL_KEY];
    });
    holder[GLOBAL_KEY] = started;
  }
  return holder[GLOBAL_KEY];
}
