// Benchmark: the library manifest (GET /api/library/manifest) for a member with a personal
// token, over a library of BENCH_MANIFEST_POSTS posts with version rows: the whole manifest (every
// post through the download check, one signed address each) against the revalidation of an
// unchanged one (If-None-Match: 304). The target is counted, not timed: an unchanged manifest
// costs one database round trip. Times are printed for information. A fresh database in a
// child process. `node --import tsx bench/manifest.ts` runs it alone.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measure, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const POSTS = Number(process.env.BENCH_MANIFEST_POSTS ?? 500);
const ROUNDS = Number(process.env.BENCH_MANIFEST_ROUNDS ?? 20);

export function benchManifest(): Promise<TargetLine[]> {
  return runBenchChild(path.join(here, "manifest.ts"), "library manifest");
}

async function runChild() {
  const { createMigratedDatabase, dropDatabase, uniqueName, databaseUrl } = await import("../tests/db.ts");
  const name = uniqueName("clib_bench_manifest");
  await createMigratedDatabase(name);
  const folder = mkdtempSync(path.join(os.tmpdir(), "clib-bench-manifest-"));
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl(name),
    NODE_ENV: "test",
    SESSION_SECRET: "bench-session-secret-bench-session-secret",
    APP_URL: "http://127.0.0.1:3999",
    DATABASE_POOL_SIZE: "2",
    DATA_DIR: folder,
  });
  const { db } = await import("../app/db.server.ts");
  const { hashToken } = await import("../app/models/session.server.ts");
  const manifestRoute = await import("../app/routes/api.library.manifest.ts");
  const { queriesDuring } = await import("../tests/helpers.ts");
  const { createTiers, TIER_1, TIER_2, TIER_3 } = await import("../tests/library-fixtures.ts");
  try {
    await createTiers();
    // Every third post is for a tier the member lacks: the check refuses those.
    const tiers = [TIER_1, TIER_2, TIER_3];
    for (let index = 0; index < POSTS; index++) {
      const id = `bench-manifest-${index}`;
      const key = `posts/${id}/file.zip`;
      await db.post.create({
        data: {
          id,
          title: `Bench manifest ${index}`,
          paidContent: true,
          driveFileId: key,
          fileName: "file.zip",
          fileSize: 1024n,
          version: "V1.0",
          tiers: { create: [{ tierId: tiers[index % 3]!, kind: "CURRENT" }] },
          versions: {
            create: [
              { id: `${id}-v1`, label: "V1.0", storageKey: key, fileName: "file.zip", size: 1024n, sha256: "0".repeat(64), contentHash: "1".repeat(64) },
            ],
          },
        },
      });
      await db.post.update({ where: { id }, data: { currentVersionId: `${id}-v1` } });
    }
    const user = await db.user.create({
      data: { email: "bench-manifest@example.com", currentTierId: TIER_2, tosAccepted: true, mailVerified: true, emailVerifiedBy: "CODE" },
    });
    const token = "bench-manifest-token";
    await db.apiToken.create({ data: { userId: user.id, tokenHash: hashToken(token), label: "bench" } });

    const get = (headers: Record<string, string> = {}) =>
      manifestRoute.loader({
        request: new Request("http://127.0.0.1:3999/api/library/manifest", { headers: { Authorization: `Bearer ${token}`, ...headers } }),
        params: {},
        context: {},
      });
    const first = await get();
    const etag = first.headers.get("ETag")!;
    const listed = ((await first.json()) as { posts: unknown[] }).posts.length;
    const full = await measure(async () => (await get()).text(), ROUNDS);
    const unchanged = await measure(async () => (await get({ "If-None-Match": etag })).status, ROUNDS);
    const { result: status, queries } = await queriesDuring("", () => get({ "If-None-Match": etag }));

    console.log(`library manifest: ${POSTS} posts, ${listed} listed for the member, ${ROUNDS} rounds each:`);
    console.log(`  whole manifest (200)        median ${full.median.toFixed(1).padStart(7)} ms   p95 ${full.p95.toFixed(1).padStart(7)} ms`);
    console.log(`  unchanged manifest (304)    median ${unchanged.median.toFixed(1).padStart(7)} ms   p95 ${unchanged.p95.toFixed(1).padStart(7)} ms`);
    reportTargets([
      {
        name: "unchanged manifest queries",
        ok: status.status === 304 && queries.length === 1,
        text: `unchanged manifest: ${status.status}, ${queries.length} database round trip(s) (target: 304 with 1)`,
      },
    ]);
  } finally {
    await db.$disconnect();
    await dropDatabase(name);
    rmSync(folder, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, runChild, benchManifest);
