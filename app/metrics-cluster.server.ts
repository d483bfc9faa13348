// The whole server's metrics and who may read them (GET /metrics, server/observe.ts). Every
// worker counts its own requests, jobs and downloads (app/metrics.server.ts); the worker asked
// for /metrics asks the primary, which gathers every worker's metrics over the cluster's IPC
// (prom-client's AggregatorRegistry), sums them and adds its own (worker restarts). A server of
// one process answers alone.
import cluster, { type Worker } from "node:cluster";
import { timingSafeEqual } from "node:crypto";
import { AggregatorRegistry, collectDefaultMetrics, Counter, register, Registry } from "prom-client";
import { defineMetrics } from "~/metrics.server";

const ASK = "clib-metrics:ask";
const ANSWER = "clib-metrics:answer";
/** prom-client's own messages between the primary and the workers. */
const PROM_CLIENT_MESSAGE = /^prom-client:/;
const ASK_TIMEOUT_MS = 10_000;

type MetricsMessage = { type: string; id?: number; text?: string; error?: string };

function isMetricsMessage(message: unknown): message is MetricsMessage {
  const type = (message as { type?: unknown } | null)?.type;
  return typeof type === "string" && (type === ASK || type === ANSWER || PROM_CLIENT_MESSAGE.test(type));
}

/** An address of this machine: 127.0.0.0/8 or ::1, also as an IPv4-mapped IPv6 address. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

/**
 * Who may read /metrics: a client on this machine (the socket's address, never a header), or
 * anyone who sends `Authorization: Bearer <METRICS_TOKEN>` when that token is set.
 */
export function metricsAllowed(remoteAddress: string | undefined, authorization: string | undefined, token: string | undefined): boolean {
  if (isLoopback(remoteAddress)) return true;
  if (!token) return false;
  const sent = /^bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim();
  if (!sent) return false;
  const [a, b] = [Buffer.from(sent), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a refused client hears (docs/messages.md). */
export const METRICS_REFUSED_MESSAGE = "Metrics are served to this machine, or with the metrics token.";

// ------------------------------------------------------------------ in a worker

const asked = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
let nextAsk = 0;

/** This process's default metrics (CPU, memory, event loop) and, under the cluster, its answers to the primary. */
export function startWorkerMetrics(): void {
  collectDefaultMetrics();
  defineMetrics();
  if (!cluster.isWorker) return;
  // Made for its side effect: this worker answers the primary's requests for its metrics.
  new AggregatorRegistry();
  process.on("message", (message: unknown) => {
    if (!isMetricsMessage(message) || message.type !== ANSWER || message.id === undefined) return;
    const waiting = asked.get(message.id);
    asked.delete(message.id);
    if (message.text !== undefined) waiting?.resolve(message.text);
    else waiting?.reject(new Error(message.error ?? "no metrics"));
  });
}

/** The whole server's metrics: from the primary under the cluster, else this process's own. */
export function serverMetrics(): Promise<string> {
  if (!cluster.isWorker || !process.send) return register.metrics();
  const id = nextAsk++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      asked.delete(id);
      reject(new Error("the primary did not answer"));
    }, ASK_TIMEOUT_MS);
    asked.set(id, {
      resolve: (text) => (clearTimeout(timer), resolve(text)),
      reject: (error) => (clearTimeout(timer), reject(error)),
    });
    process.send!({ type: ASK, id } satisfies MetricsMessage);
  });
}

// ------------------------------------------------------------------ in the primary

/**
 * The primary's part: its own counter of worker restarts, and the answer to a worker that asks
 * for the whole server's metrics (`handles`: whether a worker's message was one of these).
 */
export function superviseMetrics() {
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  const restarts = new Counter({ name: "clib_worker_restarts_total", help: "Workers that died and were started again", registers: [own] });
  return {
    workerRestarted: () => restarts.inc(),
    handles(worker: Worker, message: unknown): boolean {
      if (!isMetricsMessage(message)) return false;
      if (message.type === ASK) {
        Promise.all([aggregator.clusterMetrics(), own.metrics()]).then(
          ([workers, primary]) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, text: `${workers.trimEnd()}\n${primary}` }),
          (error: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, error: String(error) }),
        );
      }
      return true;
    },
  };
}
