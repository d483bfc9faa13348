// A download record survives a busy database: with every connection of the app's pool held
// longer than Prisma's default 2 s wait for a transaction, the record of a completed download
// waits its turn instead of being lost (the release-day benchmark lost 91 of 500 this way).
import { expect, it } from "vitest";
import { db } from "~/db.server";
import { recordDownload } from "~/models/download.server";
import { createTestUser } from "./helpers";
import { createPost } from "./library-fixtures";

it("records a download made while every pooled connection is busy for 3 s", async () => {
  const user = await createTestUser();
  const post = await createPost({ paid: false });
  const poolSize = Number(process.env.DATABASE_POOL_SIZE);
  expect(poolSize).toBeGreaterThan(0);
  // Each holds one connection of the pool for 3 s.
  const busy = Array.from({ length: poolSize }, () => db.$transaction(async (tx) => tx.$queryRaw`SELECT 1 AS slept FROM pg_sleep(3)`, { timeout: 10_000 }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const recorded = recordDownload(user.id, post.id, "V1.0", new Date(), "free", null);
  await Promise.all(busy);
  expect(await recorded).toBe(true);
  expect(await db.download.count({ where: { userId: user.id, postId: post.id } })).toBe(1);
});
