// The one Prisma client of the process, kept across dev rebuilds.
import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "~/env.server";
import { PrismaClient } from "~/generated/prisma/client";

const SLOW_QUERY_MS = 200;

function createClient() {
  const adapter = new PrismaPg({ connectionString: env().DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  const client = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    if (event.duration >= SLOW_QUERY_MS) console.warn(`slow query (${event.duration} ms): ${event.query.slice(0, 200)}`);
  });
  return client;
}

const globalForDb = globalThis as unknown as { __db?: ReturnType<typeof createClient> };

export const db = (globalForDb.__db ??= createClient());

export { Prisma } from "~/generated/prisma/client";
