// `npm run bench`: every benchmark of the project, each printing its figures and ratios.
// Not part of the test suite; timing targets are reported, never asserted.
import { runLibraryBenchmark } from "./library.ts";
import { benchAdminSearch } from "./admin-search.ts";
import { runLoadBenchmark } from "./load.ts";
import { runLighthouseBenchmark } from "./lighthouse.ts";

const results = [await runLibraryBenchmark(), await benchAdminSearch(), await runLoadBenchmark(), await runLighthouseBenchmark()];
const failed = results.flat().filter((line) => !line.ok);
console.log(failed.length === 0 ? "\nAll benchmark targets met." : `\n${failed.length} benchmark target(s) missed: ${failed.map((line) => line.name).join(", ")}`);
