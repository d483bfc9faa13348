// `npm run bench`: every benchmark of the project, each printing its figures and ratios.
// Not part of the test suite; timing targets are reported, never asserted.
import { runLibraryBenchmarkApart } from "./library.ts";
import { benchAdminSearch } from "./admin-search.ts";
import { benchUpdates } from "./updates.ts";
import { runLoadBenchmark } from "./load.ts";
import { runLighthouseBenchmark } from "./lighthouse.ts";
import { benchFirstLoadJs } from "./first-load-js.ts";
import { runPagesBenchmark } from "./pages.ts";
import { benchOverload } from "./overload.ts";
import { benchReleaseDay } from "./release-day.ts";
import { benchStampedDownload } from "./stamped-download.ts";
import { benchManifest } from "./manifest.ts";
import { benchRouteMatching } from "./route-matching.ts";
import { benchStart } from "./start.ts";
import { benchSteady } from "./steady.ts";
import { benchLibraryFeatures } from "./library-features.ts";
import type { TargetLine } from "./child.ts";

type Benchmark = [name: string, run: () => Promise<TargetLine[]>];

const benchmarks: Benchmark[] = [
  ["start", benchStart],
  // The library on each database people run: the machine's PostgreSQL, the embedded default of
  // `npm start`, and PostgreSQL behind PgBouncer in transaction mode.
  ...(["direct", "embedded", "pgbouncer"] as const).map((database): Benchmark => [`library (${database})`, () => runLibraryBenchmarkApart(database)]),
  ["admin search", benchAdminSearch],
  ["updates", benchUpdates],
  ["stamped download", benchStampedDownload],
  ["manifest", benchManifest],
  ["pages", runPagesBenchmark],
  ["library features", benchLibraryFeatures],
  ["steady", benchSteady],
  ["mixed load", runLoadBenchmark],
  ["release day", benchReleaseDay],
  ["overload", benchOverload],
  ["lighthouse", runLighthouseBenchmark],
  ["first-load JavaScript", benchFirstLoadJs],
  ["route matching", benchRouteMatching],
];
// A benchmark that cannot run (a browser not installed, say) is a missed target; the rest still run.
const results: TargetLine[] = [];
for (const [name, run] of benchmarks) {
  results.push(
    ...(await run().catch((error: unknown) => {
      console.log(`MISS  ${name}: could not run: ${error instanceof Error ? error.message : String(error)}`);
      return [{ name: `${name} (could not run)`, ok: false }];
    })),
  );
}
const failed = results.filter((line) => !line.ok);
console.log(
  failed.length === 0 ? "\nAll benchmark targets met." : `\n${failed.length} benchmark target(s) missed: ${failed.map((line) => line.name).join(", ")}`,
);
