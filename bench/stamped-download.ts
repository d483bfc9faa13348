// Benchmark: download throughput of a stamped paid ZIP against the unstamped stream of
// the same stored file. The target compares the serving step alone: serveDownload with the
// downloader's trace number (stampedView: the stored bytes up to the end record, then a new end
// record) against serveDownload without one. For information it also times the whole download
// route (session, entitlement and the download record: a fixed cost per request, not per byte).
// Each round reads the whole body; rounds alternate so a busy machine weighs on both alike.
// Prints median MB/s and the ratio. A fresh database and storage folder per run, in a child process.
// `node --import tsx bench/stamped-download.ts` runs it alone.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const MIB = Number(process.env.BENCH_STAMP_MIB ?? 128);
const ROUNDS = Number(process.env.BENCH_STAMP_ROUNDS ?? 7);

/** Target: a stamped paid ZIP downloads at least 0.8 times as fast as the unstamped stream. */
const TARGET_RATIO = 0.8;

export type { TargetLine } from "./child.ts";

export function benchStampedDownload(): Promise<TargetLine[]> {
  return runBenchChild(path.join(here, "stamped-download.ts"), "stamped download");
}

/** Reads a response body to its end; answers its length. */
async function drain(response: Response): Promise<number> {
  let bytes = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

async function runChild() {
  const { createMigratedDatabase, dropDatabase, uniqueName, databaseUrl } = await import("../tests/db.ts");
  const name = uniqueName("clib_bench_stamp");
  await createMigratedDatabase(name);
  const folder = mkdtempSync(path.join(os.tmpdir(), "clib-bench-stamp-"));
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl(name),
    NODE_ENV: "test",
    SESSION_SECRET: "bench-session-secret-bench-session-secret",
    APP_URL: "http://127.0.0.1:3999",
    DATABASE_POOL_SIZE: "2",
    DATA_DIR: folder,
  });
  const { db } = await import("../app/db.server.ts");
  const { LocalStorage, setStorageForTests } = await import("../app/integrations/storage.server.ts");
  const { createUserSession } = await import("../app/models/session.server.ts");
  const paidRoute = await import("../app/routes/api.download.$postId.ts");
  const { serveDownload } = await import("../app/utils/serve-file.server.ts");
  const { createTiers, TIER_2 } = await import("../tests/library-fixtures.ts");
  const { writeZip } = await import("../tests/zip-files.ts");
  try {
    const store = new LocalStorage(path.join(folder, "files"));
    setStorageForTests(store);
    await createTiers();
    // A stored (uncompressed) archive of MIB MiB in 8 entries, written by Python's zipfile.
    const zipPath = path.join(folder, "bench.zip");
    const entryText = "0123456789abcdef".repeat(64 * 1024);
    writeZip(
      zipPath,
      Array.from({ length: 8 }, (_, index) => ({ name: `mod/part-${index}.bin`, text: entryText, repeat: Math.max(1, Math.round(MIB / 8)) })),
    );
    const key = "posts/bench-stamp/bench.zip";
    await store.put(key, readFileSync(zipPath));
    rmSync(zipPath);
    const size = (await store.stat(key))!.size;
    await db.post.create({
      data: {
        id: "bench-stamp",
        title: "Bench stamp",
        paidContent: true,
        driveFileId: key,
        fileName: "bench.zip",
        fileSize: BigInt(size),
        tiers: { create: [{ tierId: TIER_2, kind: "CURRENT" }] },
      },
    });
    const user = await db.user.create({ data: { email: "bench-stamp@example.com", currentTierId: TIER_2, tosAccepted: true, mailVerified: true } });
    const cookie = (await createUserSession(user.id)).split(";")[0]!;

    const request = () => new Request("http://127.0.0.1:3999/api/download/bench-stamp", { headers: { Cookie: cookie } });
    const stamped = async () => drain(await serveDownload(request(), { key, fileName: "bench.zip" }, { traceNumber: user.number }));
    const plain = async () => drain(await serveDownload(request(), { key, fileName: "bench.zip" }));
    const route = async () => drain(await paidRoute.loader({ request: request(), params: { postId: "bench-stamp" }, context: {} }));
    const stampedSize = await stamped();
    const plainSize = await plain();
    await route();
    const stampedRates: number[] = [];
    const plainRates: number[] = [];
    const routeRates: number[] = [];
    const rate = async (fn: () => Promise<number>) => {
      const start = performance.now();
      const bytes = await fn();
      return bytes / 1024 / 1024 / ((performance.now() - start) / 1000);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order, so neither side always runs with a warmer cache.
      if (round % 2 === 0) {
        stampedRates.push(await rate(stamped));
        plainRates.push(await rate(plain));
      } else {
        plainRates.push(await rate(plain));
        stampedRates.push(await rate(stamped));
      }
      routeRates.push(await rate(route));
    }
    const stampedMedian = median(stampedRates);
    const plainMedian = median(plainRates);
    const ratio = stampedMedian / plainMedian;
    console.log(
      `stamped paid ZIP download: ${(size / 1024 / 1024).toFixed(1)} MiB stored (${stampedSize - plainSize >= 0 ? "+" : ""}${stampedSize - plainSize} bytes stamped), ${ROUNDS} rounds each, local storage:`,
    );
    console.log(`  unstamped stream (serveDownload)     median ${plainMedian.toFixed(0).padStart(6)} MB/s`);
    console.log(`  stamped stream (serveDownload)       median ${stampedMedian.toFixed(0).padStart(6)} MB/s   ratio ${ratio.toFixed(2)}`);
    console.log(
      `  whole download route, stamped        median ${median(routeRates).toFixed(0).padStart(6)} MB/s   (session, entitlement, record: fixed per request)`,
    );
    reportTargets([
      {
        name: "stamped download throughput",
        ok: ratio >= TARGET_RATIO,
        text: `stamped paid ZIP throughput: ${ratio.toFixed(2)} of the unstamped stream (target >= ${TARGET_RATIO})`,
      },
    ]);
  } finally {
    setStorageForTests(undefined);
    await db.$disconnect();
    await dropDatabase(name);
    rmSync(folder, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, runChild, benchStampedDownload);
