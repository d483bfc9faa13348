// What requirements and game-patch compatibility cost a signed-in library view: the app's CPU
// milliseconds per `/library` view on the demo content (posts that require others, two game
// patches with a patch day under way) against the same content without them (no requirement
// rows, no game patches, so no marks and no patch-day banner), side by side in one run. Two app
// servers of the same build, one worker each, each on its own seeded database; rounds
// alternate between them and each side's median round counts. Each view is by the next of 50
// Tier 2 supporters, four at a time.
// Target: with them, at most 10% more CPU per view than without.
import http from "node:http";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { median, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";
// Types only: the seeding child runs load.ts, which imports this module for seedExtra.
import type { ExtraSeedContext } from "./load.ts";

const ROUNDS = Number(process.env.BENCH_FEATURES_ROUNDS ?? 5);
const VIEWS = Number(process.env.BENCH_FEATURES_VIEWS ?? 600);
const READERS = 50;
const CONCURRENCY = 4;
const RATIO_TARGET = 1.1;

type Stripped = { requirements: number; patches: number };

/** The "without" side's seed: the demo content less its requirements and game patches (marks and confirmations go with them). */
export async function seedExtra({ db }: ExtraSeedContext): Promise<Stripped> {
  const requirements = await db.postRequirement.deleteMany({});
  const patches = await db.gamePatch.deleteMany({});
  return { requirements: requirements.count, patches: patches.count };
}

/** CPU milliseconds a process has used so far (user + system, from /proc). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ is 100 on Linux
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

/** GET with a cookie; resolves with the status and the body's length. */
function view(url: string, cookie: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { Cookie: cookie } }, (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes }));
      })
      .on("error", reject);
  });
}

/** `count` library views, CONCURRENCY at a time, each by the next reader; answers CPU ms per view and non-200 answers. */
async function viewRound(app: { base: string; pid: number; readerCookies: string[] }, count: number): Promise<{ cpuPerView: number; bad: number }> {
  const before = cpuMs(app.pid);
  let bad = 0;
  for (let index = 0; index < count; index += CONCURRENCY) {
    const answers = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, offset) => view(`${app.base}/library`, app.readerCookies[(index + offset) % READERS]!)),
    );
    bad += answers.filter((answer) => answer.status !== 200).length;
  }
  return { cpuPerView: (cpuMs(app.pid) - before) / count, bad };
}

async function runChild() {
  const { startSeededApp } = await import("./load.ts");
  console.log(`\nLibrary with and without requirements and compatibility: ${ROUNDS} alternating rounds of ${VIEWS} signed-in /library views each`);
  const withThem = await startSeededApp({ readers: READERS });
  try {
    const without = await startSeededApp({ readers: READERS, extraSeed: fileURLToPath(import.meta.url) });
    try {
      const stripped = without.extra as Stripped;
      const sides = [
        { name: "with", app: withThem, rounds: [] as number[], bad: 0, bytes: 0 },
        { name: "without", app: without, rounds: [] as number[], bad: 0, bytes: 0 },
      ];
      // Warm both (compilations, the listing snapshot, every reader's kept document).
      for (const side of sides) {
        await viewRound(side.app, READERS * 4);
        side.bytes = (await view(`${side.app.base}/library`, side.app.readerCookies[0]!)).bytes;
      }
      for (let round = 0; round < ROUNDS; round++) {
        // Who goes first alternates too, so neither side always follows the other.
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          const { cpuPerView, bad } = await viewRound(side.app, VIEWS);
          side.rounds.push(cpuPerView);
          side.bad += bad;
        }
      }
      for (const side of sides) {
        console.log(
          `${side.name.padEnd(7)} CPU ms per view by round: ${side.rounds.map((value) => value.toFixed(2)).join(", ")}; median ${median(side.rounds).toFixed(2)}; page ${(side.bytes / 1024).toFixed(1)} KiB; non-200: ${side.bad}`,
        );
      }
      console.log(`(without: the demo content less its ${stripped.requirements} requirement rows and ${stripped.patches} game patches)`);
      const ratio = median(sides[0]!.rounds) / median(sides[1]!.rounds);
      const lines: (TargetLine & { text: string })[] = [
        {
          name: "library features CPU",
          ok: ratio <= RATIO_TARGET && sides.every((side) => side.bad === 0),
          text: `library view with requirements and compatibility: x${ratio.toFixed(2)} the CPU per view without them (${median(sides[0]!.rounds).toFixed(2)} / ${median(sides[1]!.rounds).toFixed(2)} ms; target <= x${RATIO_TARGET.toFixed(2)}, every answer 200)`,
        },
      ];
      reportTargets(lines);
    } finally {
      await without.stop();
    }
  } finally {
    agent.destroy();
    await withThem.stop();
  }
}

/** The benchmark in a child process of its own. */
export function benchLibraryFeatures(): Promise<TargetLine[]> {
  return runBenchChild(fileURLToPath(import.meta.url), "library features");
}

await runAsScript(import.meta.url, runChild, benchLibraryFeatures);
