// Median and p95 of repeated calls, after one warm-up call: how the benchmarks time a query.
export async function measureRounds(fn: () => Promise<unknown>, rounds: number): Promise<{ median: number; p95: number }> {
  await fn();
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (fraction: number) => times[Math.min(times.length - 1, Math.floor(times.length * fraction))]!;
  return { median: at(0.5), p95: at(0.95) };
}
