// The one Prisma client of the process, kept across dev rebuilds, and the connection pool it
// runs on.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "~/env.server";
import { watchDatabasePool } from "~/metrics.server";
import { slowQueryNotesOn } from "~/slow-query-notes.server";
import { PrismaClient } from "~/generated/prisma/client";
import { DatabaseUnavailable } from "~/utils/errors";

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
/** What node-postgres says when the server went away mid-connection. */
const CONNECTION_LOST = /^(?:Connection terminated|Connection closed|Client has encountered a connection error)/i;
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
    console.error(`database unavailable: ${reason}`);
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

function createClient() {
  const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: env().DATABASE_POOL_SIZE });
  // An idle connection the server closes (a restart, a failover, a pooler or an admin ending it)
  // is reported on the pool, and node-postgres throws it when no one listens. Prisma's adapter
  // listens only once Prisma has connected, while queryRows uses the pool from the first request:
  // without this a worker died when its database restarted before its first Prisma query. The
  // pool has already dropped the connection; the next query opens a new one.
  pool.on("error", (error) => console.warn(`database connection lost while idle: ${error.message}`));
  watchDatabasePool(pool);
  const adapter = guardAdapter(new PrismaPg(pool, { disposeExternalPool: true }));
  const client = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    if (event.duration >= SLOW_QUERY_MS && slowQueryNotesOn()) console.warn(`slow query (${event.duration} ms): ${event.query.slice(0, 200)}`);
  });
  return { client, pool };
}

const globalForDb = globalThis as unknown as { __db?: ReturnType<typeof createClient> };
const shared = (globalForDb.__db ??= createClient());

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
