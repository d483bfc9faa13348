// The one Prisma client of the process, kept across dev rebuilds, and the connection pool it
// runs on.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "~/env.server";
import { PrismaClient } from "~/generated/prisma/client";

const SLOW_QUERY_MS = 200;

/** `timestamp` columns hold UTC (Prisma writes them so); node-postgres would read local time. */
const TIMESTAMP_OID = 1114;
const utcTimestamps = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP_OID) return (value: string) => new Date(`${value.replace(" ", "T")}Z`);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function createClient() {
  const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const client = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    if (event.duration >= SLOW_QUERY_MS) console.warn(`slow query (${event.duration} ms): ${event.query.slice(0, 200)}`);
  });
  return { client, pool };
}

const globalForDb = globalThis as unknown as { __db?: ReturnType<typeof createClient> };
const shared = (globalForDb.__db ??= createClient());

export const db = shared.client;

/**
 * A named prepared statement on Prisma's own pool, for the few lookups that every request makes
 * (its user, what the viewer is entitled to). PostgreSQL plans a named statement once per
 * connection, where Prisma's queries are parsed and planned on every call and also pass through
 * its query compiler: about 1 ms of CPU per request saved, measured by `npm run bench`.
 * Everything else goes through Prisma.
 */
export async function preparedQuery<Row>(name: string, text: string, values: unknown[]): Promise<Row[]> {
  const result = await shared.pool.query({ name, text, values, types: utcTimestamps });
  return result.rows as Row[];
}

export { Prisma } from "~/generated/prisma/client";
