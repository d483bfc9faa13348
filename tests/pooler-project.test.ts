// Runs in the pooler project only (vitest.config.ts): proves that its files really reach the
// database through PgBouncer, so a broken setup cannot turn the pooler run into a second direct one.
import { expect, inject, it } from "vitest";
import { queryRows } from "~/db.server";

it("sends the app's queries to PgBouncer's port", async () => {
  const poolerPort = inject("poolerPort");
  expect(poolerPort).toBeGreaterThan(0);
  expect(new URL(process.env.DATABASE_URL!).port).toBe(String(poolerPort));
  const [row] = await queryRows<{ one: number }>("SELECT 1 AS one", []);
  expect(row!.one).toBe(1);
});
