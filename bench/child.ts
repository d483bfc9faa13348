// Shared by the benchmarks that run in a child process (so their database connections never mix
// with another benchmark's): start the child, pass its output through, collect its targets; and
// time a function over rounds; the percentiles every benchmark reports.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type TargetLine = { name: string; ok: boolean };

/** Runs `script --child` with tsx; its `TARGETS [...]` line is the answer, every other line is printed. */
export function runBenchChild(script: string, label: string): Promise<TargetLine[]> {
  return new Promise<TargetLine[]>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, "--child"], { stdio: ["ignore", "pipe", "inherit"], env: process.env });
    let targets: TargetLine[] = [];
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith("TARGETS ")) targets = JSON.parse(line.slice("TARGETS ".length)) as TargetLine[];
        else console.log(line);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(targets) : reject(new Error(`${label} benchmark failed (${code})`))));
  });
}

/** The value at `fraction` of values sorted ascending (nearest rank); NaN for none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** The middle of values in any order (the upper middle for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** Median and p95 of `rounds` runs, after one warm-up run. */
export async function measure(fn: () => Promise<unknown>, rounds: number): Promise<{ median: number; p95: number }> {
  await fn();
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

/** Prints each target as PASS or MISS, and the `TARGETS` line the parent reads. */
export function reportTargets(targets: (TargetLine & { text: string })[]): void {
  for (const target of targets) console.log(`${target.ok ? "PASS" : "MISS"}  ${target.text}`);
  console.log(`TARGETS ${JSON.stringify(targets.map(({ name, ok }) => ({ name, ok })))}`);
}

/** A benchmark file's entry point: the measuring child with `--child`, else the whole benchmark when run directly. */
export async function runAsScript(moduleUrl: string, child: () => Promise<void>, bench: () => Promise<TargetLine[]>): Promise<void> {
  if (process.argv.includes("--child")) {
    await child();
  } else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl)) {
    const targets = await bench();
    if (targets.some((target) => !target.ok)) process.exitCode = 1;
  }
}
