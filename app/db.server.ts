// The one Prisma client of the process, kept across dev rebuilds, and the connection pool it
// runs on.
import net from "node:net";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "~/env.server";
import { watchDatabasePool } from "~/metrics.server";
import { slowQueryNotesOn } from "~/slow-query-notes.server";
import { PrismaClient } from "~/generated/prisma/client";
import { DatabaseUnavailable } from "~/utils/errors";
import { log } from "~/logger.server";
import { outsideRequest } from "~/request-context.server";

const SLOW_QUERY_MS = 200;

/** `timestamp` columns hold UTC (Prisma writes them so); node-postgres would read local time. */
const TIMESTAMP_OID = 1114;
const utcTimestamps = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP_OID) return (value: string) => new Date(`${value.replace(" ", "T")}Z`);
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

/** Socket errors of a database that cannot be reached or dropped the connection. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);
/** PostgreSQL's own: shutting down or starting up (57P01-57P03), connection exceptions (class 08), too many connections. */
const UNAVAILABLE_SQLSTATE = /^(?:57P0[123]|08...|53300)$/;
/**
 * What node-postgres says when the server went away mid-connection, or gave no answer within
 * DATABASE_TIMEOUT_MS (a query, or a connection: a new one, or a free one of the pool).
 */
const CONNECTION_LOST =
  /^(?:Connection terminated|Connection closed|Client has encountered a connection error|Query read timeout|timeout exceeded when trying to connect)/i;
/** node-postgres' words for a query that got no answer within `query_timeout`. */
const QUERY_UNANSWERED = "Query read timeout";
/** The driver adapter's kinds for the same (@prisma/adapter-pg). */
const UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);

/**
 * Why an error means the database is unreachable (stopped, restarting, refusing connections),
 * or null for any other failure (a constraint, a bad query), looking through the driver
 * adapter's and Prisma's wrappers.
 */
export function unreachableReason(error: unknown, depth = 0): string | null {
  if (!error || typeof error !== "object" || depth > 4) return null;
  const { code, message, kind, cause, meta } = error as {
    code?: unknown;
    message?: unknown;
    kind?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (typeof kind === "string") {
    if (UNAVAILABLE_KINDS.has(kind)) return kind;
    if (kind === "postgres" && typeof code === "string" && UNAVAILABLE_SQLSTATE.test(code)) return `${code} ${typeof message === "string" ? message : ""}`;
    return null;
  }
  if (typeof code === "string" && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)))
    return `${code}${typeof message === "string" ? ` ${message}` : ""}`;
  if (code === "P1001" || code === "P1002" || code === "P1017") return code;
  if (typeof message === "string" && CONNECTION_LOST.test(message)) return message;
  return unreachableReason(cause, depth + 1) ?? unreachableReason(meta?.driverAdapterError, depth + 1);
}

/** An outage is logged once per this, not once per failed request. */
const OUTAGE_LOG_EVERY_MS = 10_000;
let outageLoggedAt = 0;

/** The error a caller sees: DatabaseUnavailable for an unreachable database (logged now and then), else the error itself. */
function asUnavailable(error: unknown): unknown {
  const reason = unreachableReason(error);
  if (reason === null) return error;
  if (Date.now() - outageLoggedAt >= OUTAGE_LOG_EVERY_MS) {
    outageLoggedAt = Date.now();
    log().error({ reason }, `database unavailable: ${reason}`);
  }
  return new DatabaseUnavailable(reason);
}

/**
 * The driver adapter with every call's failure passed through `asUnavailable`: Prisma hands an
 * error thrown by its adapter to the caller as it is, so every query, raw query and transaction
 * (also the transaction's own calls) throws DatabaseUnavailable while the database is down.
 */
function guardAdapter<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        const opensMore = property === "connect" || property === "startTransaction";
        return result.then(
          (opened: unknown) => (opensMore && opened && typeof opened === "object" ? guardAdapter(opened) : opened),
          (error: unknown) => {
            throw asUnavailable(error);
          },
        );
      };
    },
  });
}

type QueryFunction = (...args: unknown[]) => unknown;

/** PostgreSQL's CancelRequest code (the protocol's "Canceling Requests in Progress"). */
const CANCEL_REQUEST_CODE = 80877102;
/** A server (or pooler) that answers takes a CancelRequest in milliseconds; one that does not is left. */
const CANCEL_WAIT_MS = 1_000;

/**
 * Asks the server to stop the query a connection is running, with a CancelRequest on a new
 * connection, and settles once the server has taken it (it then closes that connection) or after
 * CANCEL_WAIT_MS. A query that got no answer in time may be waiting on a lock, and would
 * otherwise still write after its caller heard 503.
 */
function cancelRunningQuery(client: pg.PoolClient): Promise<void> {
  const { host, port, processID, secretKey } = client as unknown as { host: string; port: number; processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null) return Promise.resolve();
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    const socket = host.startsWith("/") ? net.connect(`${host}/.s.PGSQL.${port}`) : net.connect(port, host);
    socket.setTimeout(CANCEL_WAIT_MS, () => socket.destroy());
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
    // Written, not ended: libpq waits for the server to close, and PgBouncer 1.18 exits on a
    // cancel connection that the client half-closes first.
    socket.write(request);
  });
}

/**
 * Cancels and closes a connection whose query got no answer in time, rather than use it again:
 * node-postgres gives the caller up but leaves the query on the connection, so the next caller
 * would wait behind it, and a transaction's connection would never go back to the pool (its
 * ROLLBACK waits too). Closed, it leaves the pool, and a transaction's ends with it (the
 * adapter's patch). The connection stays open until the cancel is taken: a pooler forwards a
 * cancel only for a client that is still connected.
 */
function closeWhenUnanswered(client: pg.PoolClient): void {
  // The class's own query, looked up at each call (tests count queries by wrapping it).
  const query: QueryFunction = (...args) => (Object.getPrototypeOf(client) as { query: QueryFunction }).query.apply(client, args);
  const { connection } = client as unknown as { connection?: { stream?: { destroy(): void } } };
  const unanswered = (error: unknown) => error instanceof Error && error.message === QUERY_UNANSWERED;
  const cancelAndClose = () => {
    // This checkout gives the connection back as failed, so the pool drops it rather than lend
    // it again (a transaction's ROLLBACK may still succeed once the cancel lands).
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => release(error || new Error(QUERY_UNANSWERED));
    return cancelRunningQuery(client).then(() => connection?.stream?.destroy());
  };
  const bounded: QueryFunction = (...args) => {
    const callback = args.at(-1);
    if (typeof callback === "function") {
      // The pool's own calls: it closes a connection whose query failed as soon as it hears.
      const answer = callback as (error: unknown, result: unknown) => void;
      return query(...args.slice(0, -1), (error: unknown, result: unknown) => {
        if (unanswered(error)) void cancelAndClose().then(() => answer(error, result));
        else answer(error, result);
      });
    }
    const result = query(...args);
    if (result instanceof Promise)
      result.catch((error: unknown) => {
        if (unanswered(error)) void cancelAndClose();
      });
    return result;
  };
  Object.assign(client, { query: bounded });
}

/**
 * The Prisma client and the pool under it for one database: DATABASE_POOL_SIZE connections, and
 * no wait for a connection or an answer longer than DATABASE_TIMEOUT_MS (then DatabaseUnavailable).
 */
export function createDatabaseClient(options: { url: string; poolSize: number; timeoutMs: number }) {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.timeoutMs,
    query_timeout: options.timeoutMs,
  });
  pool.on("connect", closeWhenUnanswered);
  // An idle connection the server closes (a restart, a failover, a pooler or an admin ending it)
  // is reported on the pool, and node-postgres throws it when no one listens. Prisma's adapter
  // listens only once Prisma has connected, while queryRows uses the pool from the first request:
  // without this a worker died when its database restarted before its first Prisma query. The
  // pool has already dropped the connection; the next query opens a new one.
  // Outside any request: the one that opened the connection is long answered.
  pool.on(
    "error",
    outsideRequest((error: Error) => log().warn(`database connection lost while idle: ${error.message}`)),
  );
  watchDatabasePool(pool);
  const adapter = guardAdapter(new PrismaPg(pool, { disposeExternalPool: true }));
  const client = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    if (event.duration < SLOW_QUERY_MS || !slowQueryNotesOn()) return;
    const durationMs = Math.round(event.duration * 10) / 10;
    log().warn({ durationMs }, `slow query (${durationMs} ms): ${event.query.slice(0, 200)}`);
  });
  return { client, pool };
}

const globalForDb = globalThis as unknown as { __db?: ReturnType<typeof createDatabaseClient> };
const shared = (globalForDb.__db ??= createDatabaseClient({
  url: env().DATABASE_URL,
  poolSize: env().DATABASE_POOL_SIZE,
  timeoutMs: env().DATABASE_TIMEOUT_MS,
}));

export const db = shared.client;

/**
 * A plain SQL read on Prisma's own pool, for the few lookups that every request makes (its user,
 * what the viewer is entitled to): it skips Prisma's query compiler and result mapping, about
 * 1 ms of CPU per request (measured by `npm run bench`). Everything else goes through Prisma.
 *
 * The statement is unnamed on purpose. Behind a transaction-mode pooler (PgBouncer, the poolers
 * of hosted PostgreSQL) consecutive queries may run on different server connections, so a named
 * prepared statement is missing on one and "already exists" on another. An unnamed statement is
 * parsed, bound and run in one protocol round, which every pooler passes through.
 */
export async function queryRows<Row>(text: string, values: unknown[]): Promise<Row[]> {
  try {
    const result = await shared.pool.query({ text, values, types: utcTimestamps });
    return result.rows as Row[];
  } catch (error) {
    throw asUnavailable(error);
  }
}

/**
 * A Date as the text of a `TIMESTAMP(3)` column, which holds UTC without a zone (as Prisma
 * writes them), for plain SQL: send it as `$n::timestamp(3)`.
 */
export function sqlTimestamp(date: Date): string {
  return date.toISOString().replace("Z", "");
}

export { Prisma } from "~/generated/prisma/client";
export { isDatabaseUnavailable } from "~/utils/errors";
