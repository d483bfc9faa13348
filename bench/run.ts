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

// The library on each database people run: the machine's PostgreSQL, the embedded default of
// `npm start`, and PostgreSQL behind PgBouncer in transaction mode.
const library = [];
for (const database of ["direct", "embedded", "pgbouncer"] as const) library.push(await runLibraryBenchmarkApart(database));
const results = [
  await benchStart(),
  ...library,
  await benchAdminSearch(),
  await benchUpdates(),
  await benchStampedDownload(),
  await benchManifest(),
  await runPagesBenchmark(),
  await benchLibraryFeatures(),
  await benchSteady(),
  await runLoadBenchmark(),
  await benchReleaseDay(),
  await benchOverload(),
  await runLighthouseBenchmark(),
  await benchFirstLoadJs(),
  await benchRouteMatching(),
];
const failed = results.flat().filter((line) => !line.ok);
console.log(
  failed.length === 0 ? "\nAll benchmark targets met." : `\n${failed.length} benchmark target(s) missed: ${failed.map((line) => line.name).join(", ")}`,
);
