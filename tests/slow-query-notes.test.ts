// Slow queries are noted in the log (a warning), except while a fresh worker warms up (server/worker.ts),
// where the time is the start's and not the query's (app/slow-query-notes.server.ts).
import { describe, expect, it, vi } from "vitest";
import { db } from "~/db.server";
import { withoutSlowQueryNotes } from "~/slow-query-notes.server";

/** The slow-query notes written while `work` runs. */
async function notesDuring(work: () => Promise<unknown>): Promise<string[]> {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    await work();
    // The test logger writes warnings through console.warn, one JSON line each (app/logger.server.ts).
    return warn.mock.calls.map((args) => (JSON.parse(String(args[0])) as { msg: string }).msg).filter((msg) => msg.startsWith("slow query"));
  } finally {
    warn.mockRestore();
  }
}

const slowQuery = () => db.$queryRaw`SELECT pg_sleep(0.25)::text AS slept`;

describe("slow-query notes", () => {
  it("notes a query that takes 200 ms or more", async () => {
    const notes = await notesDuring(slowQuery);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^slow query \(\d+(\.\d+)? ms\): SELECT pg_sleep/);
  });

  it("notes nothing while a warm-up runs, and notes again once it has ended, also when it failed", async () => {
    expect(await notesDuring(() => withoutSlowQueryNotes(slowQuery))).toEqual([]);
    await expect(
      withoutSlowQueryNotes(async () => {
        await slowQuery();
        throw new Error("warm-up failed");
      }),
    ).rejects.toThrow("warm-up failed");
    expect(await notesDuring(slowQuery)).toHaveLength(1);
  });
});
