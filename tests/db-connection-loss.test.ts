// The app's connection pool survives an idle connection that the database ends (a restart, a
// failover, a pooler or an admin closing it): node-postgres throws such an error unless the pool
// has a listener, which would end the worker. Nothing here touches Prisma first on purpose: the
// plain-SQL lookups (queryRows) serve requests before Prisma's adapter has connected and added
// a listener of its own.
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db, isDatabaseUnavailable, queryRows } from "~/db.server";
import { adminQuery } from "./db";

afterEach(() => vi.restoreAllMocks());

describe("the app's database pool", () => {
  it("drops an idle connection the server ended, says so, and answers the next query on a new one", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const [before] = await queryRows<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);

    await adminQuery(`SELECT pg_terminate_backend(${Number(before!.pid)})`);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringMatching(/"msg":"database connection lost while idle: terminating connection/)), {
      timeout: 10_000,
    });

    const [after] = await queryRows<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);
    expect(after!.pid).not.toBe(before!.pid);
  });

  it("a query whose connection the server ends answers DatabaseUnavailable (a 503 for its caller), and the next query works", async () => {
    globalThis.__allowConsoleError = true;
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const marker = `outage_${Date.now()}`;
    const sleeping = db.$queryRawUnsafe(`SELECT pg_sleep(10) AS ${marker}`).then(
      () => null,
      (failure: unknown) => failure,
    );
    await vi.waitFor(
      async () => {
        const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await admin.connect();
        try {
          const ended = await admin.query(
            `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE query LIKE '%AS ${marker}%' AND pid <> pg_backend_pid()`,
          );
          expect(ended.rows[0].n).toBe(1);
        } finally {
          await admin.end();
        }
      },
      { timeout: 10_000 },
    );
    const failure = await sleeping;
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(failure).toMatchObject({ status: 503, retryAfterSeconds: expect.any(Number) });
    // The outage is logged as a server error, once.
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/^\{"level":"error",.*"msg":"database unavailable: /));

    const [after] = await queryRows<{ ok: number }>("SELECT 1 AS ok", []);
    expect(after!.ok).toBe(1);
  });

  it("a transaction whose connection the server ends gives its pool slot back, so the app keeps answering", async () => {
    globalThis.__allowConsoleError = true;
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    // The server ends the connection in the middle of each of these transactions, as a restart does.
    await db.$executeRawUnsafe(
      `CREATE FUNCTION end_my_connection() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$`,
    );
    await db.$executeRawUnsafe(`CREATE TABLE ended_mid_transaction (id int)`);
    await db.$executeRawUnsafe(`CREATE TRIGGER ends_connection BEFORE INSERT ON ended_mid_transaction FOR EACH ROW EXECUTE FUNCTION end_my_connection()`);
    // More of them than the pool has connections (DATABASE_POOL_SIZE is 4 in tests): had each kept
    // its slot, the query after them would wait for a connection forever.
    const size = Number(process.env.DATABASE_POOL_SIZE);
    for (let attempt = 0; attempt <= size; attempt++) {
      const failed = await db
        .$transaction(async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO ended_mid_transaction VALUES (1)`);
        })
        .then(
          () => false,
          () => true,
        );
      expect(failed).toBe(true);
    }
    const answered = await Promise.race([
      db.$queryRawUnsafe<{ ok: number }[]>("SELECT 1 AS ok"),
      new Promise<"no connection">((resolve) => setTimeout(() => resolve("no connection"), 10_000)),
    ]);
    expect(answered).toEqual([{ ok: 1 }]);
    expect(await db.$transaction(async (tx) => tx.$queryRawUnsafe<{ ok: number }[]>("SELECT 2 AS ok"))).toEqual([{ ok: 2 }]);
  });
});
