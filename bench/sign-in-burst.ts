// The sign-in burst, shared by bench/pages.ts and bench/release-day.ts: 45 connections read
// /library as the supporter (compressed, as a browser asks), alone and then beside 5 connections
// signing in. Each sign-in is a new email from a new client address (the app is told to read it
// from `clientHeader`), so no rate limit answers it early: every one costs a full password check
// (an unknown email is checked against a stand-in hash) and ends in a 401. A p99 over a few
// seconds swings widely on a shared 2-core machine, so pairs run back to back, each is printed,
// and the benchmarks count the medians.

type Result = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  statusCodeStats?: Record<string, { count: number }>;
};
type Request = { method?: string; path: string; headers?: Record<string, string>; body?: string; setupRequest?: (request: Request) => Request };
type Autocannon = (options: { url: string; connections: number; duration: number; headers?: Record<string, string>; requests?: Request[] }) => Promise<Result>;

export type BurstPair = {
  /** `/library` p99 beside the sign-ins over its p99 alone. */
  growth: number;
  signInP50: number;
  signInP99: number;
  /** Answers other than 200 for a page or 401 for a sign-in, and connection errors. */
  failures: number;
};

const OTHER_THAN = (expected: string, result: Result) =>
  Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => code !== expected)
    .reduce((sum, [, stat]) => sum + stat.count, 0);

export async function runSignInBurst(options: {
  base: string;
  supporterCookie: string;
  clientHeader: string;
  pairs: number;
  seconds: number;
}): Promise<BurstPair[]> {
  const { default: autocannon } = (await import("autocannon")) as { default: Autocannon };
  const library = {
    url: `${options.base}/library`,
    connections: 45,
    duration: options.seconds,
    headers: { Cookie: options.supporterCookie, "Accept-Encoding": "gzip, deflate, br, zstd" },
  };
  let signInNumber = 0;
  const signIn: Request = {
    method: "POST",
    path: "/api/auth/login",
    setupRequest: (request) => {
      signInNumber += 1;
      return {
        ...request,
        headers: {
          "Content-Type": "application/json",
          [options.clientHeader]: `10.${(signInNumber >> 16) & 255}.${(signInNumber >> 8) & 255}.${signInNumber & 255}`,
        },
        body: JSON.stringify({ email: `burst-${signInNumber}@example.com`, password: "Wrong-password-1" }),
      };
    },
  };
  await autocannon({ ...library, connections: 10, duration: 1 }); // warm-up
  const pairs: BurstPair[] = [];
  for (let pair = 1; pair <= options.pairs; pair++) {
    const alone = await autocannon(library);
    const [beside, signIns] = await Promise.all([
      autocannon(library),
      autocannon({ url: options.base, connections: 5, duration: options.seconds, requests: [signIn] }),
    ]);
    const growth = beside.latency.p99 / Math.max(alone.latency.p99, 1);
    const failures = alone.errors + beside.errors + signIns.errors + OTHER_THAN("200", alone) + OTHER_THAN("200", beside) + OTHER_THAN("401", signIns);
    pairs.push({ growth, signInP50: signIns.latency.p50, signInP99: signIns.latency.p99, failures });
    const codes = Object.entries(signIns.statusCodeStats ?? {}).map(([code, stat]) => `${code}: ${stat.count}`);
    console.log(
      `sign-in burst ${pair}/${options.pairs}: /library p99 ${alone.latency.p99} ms alone, ${beside.latency.p99} ms beside 5 signing-in connections (x${growth.toFixed(2)}); sign-ins ${signIns.requests.total} (${(signIns.requests.total / options.seconds).toFixed(1)}/s), p50 ${signIns.latency.p50} ms, p99 ${signIns.latency.p99} ms (${codes.join(", ")})`,
    );
  }
  return pairs;
}
