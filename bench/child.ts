// Shared by the benchmarks that run in a child process (so their database connections never mix
// with another benchmark's): start the child, pass its output through, collect its targets; and
// time a function over rounds.
import { spawn } from "node:child_process";

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

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
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
