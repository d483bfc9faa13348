// The app's connection pool survives an idle connection that the database ends (a restart, a
// failover, a pooler or an admin closing it): node-postgres throws such an error unless the pool
// has a listener, which would end the worker. Nothing here touches Prisma first on purpose: the
// plain-SQL lookups (queryRows) serve requests before Prisma's adapter has connected and added
// a listener of its own.
import { afterEach, describe, expect, it, vi } from "vitest";
import { queryRows } from "~/db.server";
import { adminQuery } from "./db";

afterEach(() => vi.restoreAllMocks());

describe("the app's database pool", () => {
  it("drops an idle connection the server ended, says so, and answers the next query on a new one", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const [before] = await queryRows<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);

    await adminQuery(`SELECT pg_terminate_backend(${Number(before!.pid)})`);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^database connection lost while idle: terminating connection/)), {
      timeout: 10_000,
    });

    const [after] = await queryRows<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);
    expect(after!.pid).not.toBe(before!.pid);
  });
});
