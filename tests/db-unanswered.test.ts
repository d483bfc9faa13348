// The database stops answering (a frozen host, a dropped network, a query stuck behind a lock):
// a query or a wait for a connection gives up after DATABASE_TIMEOUT_MS with DatabaseUnavailable
// (a 503 for its caller), and the connection that got no answer is closed, so the pool keeps its
// slots. Built with the app's own factory on a pool of one connection: a slot kept by a query or
// a transaction that never ended would leave every later query waiting, and here failing.
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabaseClient, isDatabaseUnavailable } from "~/db.server";

const TIMEOUT_MS = 500;
/** Far longer than TIMEOUT_MS: the query that never answers in time. */
const STALL = "SELECT pg_sleep(30)";

function onePoolDatabase() {
  return createDatabaseClient({ url: process.env.DATABASE_URL!, poolSize: 1, timeoutMs: TIMEOUT_MS });
}

let opened: ReturnType<typeof onePoolDatabase> | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await opened?.client.$disconnect();
  opened = undefined;
});

/** The error a promise failed with, or "answered". */
function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => "answered",
    (error: unknown) => error,
  );
}

/** How many server processes still run a query marked so (on a connection of their own). */
async function backendsRunning(marker: string): Promise<number> {
  const observer = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await observer.connect();
  try {
    const { rows } = await observer.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${marker}%' AND pid <> pg_backend_pid()`,
    );
    return rows[0]!.n;
  } finally {
    await observer.end();
  }
}

describe("a database that does not answer", () => {
  it("fails a plain query with DatabaseUnavailable, closes that connection, and answers the next query on a new one", async () => {
    globalThis.__allowConsoleError = true;
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    opened = onePoolDatabase();
    const { client, pool } = opened;

    const failure = await failureOf(client.$queryRawUnsafe(`${STALL} /* unanswered_plain */`));
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(failure).toMatchObject({ status: 503, retryAfterSeconds: expect.any(Number) });
    // The server was asked to stop the stalled query: it would otherwise run (or wait on a lock
    // and then write) after its caller heard 503.
    await vi.waitFor(async () => expect(await backendsRunning("unanswered_plain")).toBe(0), { timeout: 10_000 });

    expect(await client.$queryRawUnsafe("SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    expect(pool.totalCount).toBe(1);
  });

  it("gives a transaction's connection back when a query in it gets no answer, so the one-connection pool still answers", async () => {
    globalThis.__allowConsoleError = true;
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    opened = onePoolDatabase();
    const { client } = opened;

    for (let attempt = 0; attempt < 3; attempt++) {
      const failure = await failureOf(
        client.$transaction(async (tx) => {
          await tx.$queryRawUnsafe("SELECT 1");
          await tx.$queryRawUnsafe(`${STALL} /* unanswered_transaction */`);
        }),
      );
      expect(failure).not.toBe("answered");
    }
    expect(await client.$transaction(async (tx) => tx.$queryRawUnsafe("SELECT 2 AS ok"))).toEqual([{ ok: 2 }]);
    expect(await client.$queryRawUnsafe("SELECT 3 AS ok")).toEqual([{ ok: 3 }]);
    await vi.waitFor(async () => expect(await backendsRunning("unanswered_transaction")).toBe(0), { timeout: 10_000 });
  });

  it("fails a wait for a connection with DatabaseUnavailable when every connection is busy for longer", async () => {
    globalThis.__allowConsoleError = true;
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    opened = onePoolDatabase();
    const { client, pool } = opened;

    // The one connection is held by a transaction that waits on the application, not the database.
    let finish = () => {};
    const holding = client.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe("SELECT 1");
        await new Promise<void>((resolve) => (finish = resolve));
      },
      { timeout: 30_000 },
    );
    await vi.waitFor(() => {
      expect(pool.totalCount).toBe(1);
      expect(pool.idleCount).toBe(0);
    });
    const failure = await failureOf(pool.query("SELECT 1"));
    expect(failure).toMatchObject({ message: "timeout exceeded when trying to connect" });
    const throughPrisma = await failureOf(client.$queryRawUnsafe("SELECT 1"));
    expect(isDatabaseUnavailable(throughPrisma)).toBe(true);

    finish();
    await holding;
    expect(await client.$queryRawUnsafe("SELECT 4 AS ok")).toEqual([{ ok: 4 }]);
  });
});
