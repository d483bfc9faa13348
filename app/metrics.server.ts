// The app's Prometheus metrics (prom-client), served at /metrics by the HTTP server
// (server/observe.ts), summed over the cluster's workers (app/metrics-cluster.server.ts). The
// Remix build and the HTTP server are bundled apart but share prom-client's one registry: each
// metric is made once per process, by whichever bundle asks first.
import { Counter, Gauge, Histogram, register, type Metric } from "prom-client";

function once<T extends Metric>(name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

/** Time from a request's arrival to its response's end, by the route that answered and the status. */
export function requestDuration(): Histogram<"route" | "status"> {
  return once(
    "clib_http_request_duration_seconds",
    () =>
      new Histogram({
        name: "clib_http_request_duration_seconds",
        help: "Time from a request's arrival to the end of its response, by route id and status",
        labelNames: ["route", "status"],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      }),
  );
}

/** Responses with a 5xx status, by route id. */
export function serverErrors(): Counter<"route" | "status"> {
  return once(
    "clib_http_server_errors_total",
    () => new Counter({ name: "clib_http_server_errors_total", help: "Responses with a 5xx status, by route id and status", labelNames: ["route", "status"] }),
  );
}

/** Background job runs, by job and outcome (`ok` or `failed`). */
export function jobRuns(): Counter<"job" | "outcome"> {
  return once(
    "clib_job_runs_total",
    () => new Counter({ name: "clib_job_runs_total", help: "Background job runs by job and outcome (ok, failed)", labelNames: ["job", "outcome"] }),
  );
}

/** Bytes of downloads handed to clients. */
export function downloadBytes(): Counter {
  return once("clib_download_bytes_sent_total", () => new Counter({ name: "clib_download_bytes_sent_total", help: "Bytes of downloads handed to clients" }));
}

/** Downloads being sent right now. */
export function downloadsInFlight(): Gauge {
  return once("clib_downloads_in_flight", () => new Gauge({ name: "clib_downloads_in_flight", help: "Downloads being sent right now" }));
}

/** Signed-in readers' pages answered from their kept copy, without running Remix (app/models/reader-pages.server.ts). */
export function keptReaderAnswers(): Counter {
  return once(
    "clib_kept_reader_pages_total",
    () => new Counter({ name: "clib_kept_reader_pages_total", help: "Signed-in readers' pages answered from their kept copy without running Remix" }),
  );
}

/** Makes the metrics every server has, so a scrape shows them (at 0) before their first event. */
export function defineMetrics(): void {
  requestDuration();
  serverErrors();
  jobRuns();
  downloadBytes();
  downloadsInFlight();
  keptReaderAnswers();
}

type PoolCounts = { totalCount: number; idleCount: number; waitingCount: number };

/** The database pool's connections (open, idle) and the queries waiting for one, read at each scrape. */
export function watchDatabasePool(pool: PoolCounts): void {
  once(
    "clib_db_pool_connections",
    () =>
      new Gauge({
        name: "clib_db_pool_connections",
        help: "Database pool: open (total) and idle connections, and queries waiting for a connection (waiting)",
        labelNames: ["state"],
        collect() {
          this.set({ state: "total" }, pool.totalCount);
          this.set({ state: "idle" }, pool.idleCount);
          this.set({ state: "waiting" }, pool.waitingCount);
        },
      }),
  );
}

const OUTBOX_READ_TIMEOUT_MS = 2_000;

export type OutboxBacklog = { depth: number; oldestAgeSeconds: number };

/**
 * The mail outbox's unsent messages and the age of the oldest, read at each scrape by the process
 * that runs the outbox sender. A database that does not answer makes them NaN (unknown) for that
 * scrape instead of failing it.
 */
export function watchMailOutbox(read: () => Promise<OutboxBacklog>): void {
  if (register.getSingleMetric("clib_mail_outbox_depth")) return;
  let latest: Promise<OutboxBacklog | null> | null = null;
  // Both gauges from one query: a scrape calls both collects at once, the second joins the first read.
  const backlog = () => {
    // A database that hangs must not hold the scrape (the cluster's answer waits for every worker).
    const timeout = new Promise<null>((resolve) => setTimeout(resolve, OUTBOX_READ_TIMEOUT_MS, null).unref());
    latest ??= Promise.race([read(), timeout])
      .catch(() => null)
      .finally(() => (latest = null));
    return latest;
  };
  new Gauge({
    name: "clib_mail_outbox_depth",
    help: "Mail outbox messages not yet sent (and not given up)",
    async collect() {
      this.set((await backlog())?.depth ?? NaN);
    },
  });
  new Gauge({
    name: "clib_mail_outbox_oldest_age_seconds",
    help: "Age of the oldest unsent mail outbox message (0 when none waits)",
    async collect() {
      this.set((await backlog())?.oldestAgeSeconds ?? NaN);
    },
  });
}
