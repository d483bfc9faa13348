// Overload: 200 connections (BENCH_OVERLOAD_CONNECTIONS) for 30 s (BENCH_OVERLOAD_SECONDS), each
// a client of its own address cycling through the home page, the library, a password sign-in
// and a 256 KiB download, against the production server with one worker per core. Admission
// control (server/admission.ts) and the hashing pool's bounded queue must keep every answer
// quick: a 503 with Retry-After is an answer, silence is not.
// Targets: no request unanswered (no response head) after 5 s; no 5xx but 503 with Retry-After
// (and no connection errors); sign-ins that were admitted (not 503 or 429) answered within 2 s at p99.
import http from "node:http";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { percentile, reportTargets, runAsScript, runBenchChild, type TargetLine } from "./child.ts";
// Types only: the seeding child runs load.ts, which imports this module for seedExtra.
import type { ExtraSeedContext } from "./load.ts";

export type { TargetLine } from "./child.ts";

const CONNECTIONS = Number(process.env.BENCH_OVERLOAD_CONNECTIONS ?? 200);
const SECONDS = Number(process.env.BENCH_OVERLOAD_SECONDS ?? 30);
/** A request is given up after this; one answered later than UNANSWERED_MS counts as unanswered. */
const GIVE_UP_MS = 15_000;
const UNANSWERED_MS = 5_000;
const SIGN_IN_P99_TARGET_MS = 2_000;
const PASSWORD = "Overload-1234!";
/** The header the app is told carries the client's address: each connection is a client of its own. */
const CLIENT_HEADER = "x-bench-client";

type OverloadSeed = { emails: string[] };

/** Seeds one account with a password per connection (in startSeededApp's seeding child): one hash, shared. */
export async function seedExtra({ db }: ExtraSeedContext): Promise<OverloadSeed> {
  const { hashPassword } = await import("../app/models/passwords.server.ts");
  const passwordHash = await hashPassword(PASSWORD);
  const emails = Array.from({ length: CONNECTIONS }, (_, index) => `overload-${index}@example.com`);
  await db.user.createMany({
    data: emails.map((email, index) => ({ email, fullName: `Overload ${index}`, passwordHash, mailVerified: true, tosAccepted: true })),
  });
  return { emails };
}

type Kind = "page" | "sign-in" | "download";
/** `answeredMs`: until the response head (the answer; a download's bytes follow), `ms`: until its last byte. */
type Outcome = { kind: Kind; status: number | "error" | "timeout"; ms: number; answeredMs: number; retryAfter: boolean };

/** One request on the connection's own agent; the body is read to its end. */
function send(agent: http.Agent, url: string, options: { method?: string; headers: Record<string, string>; body?: string }, kind: Kind): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let answeredMs = Number.POSITIVE_INFINITY;
    const request = http.request(url, { agent, method: options.method ?? "GET", headers: options.headers, timeout: GIVE_UP_MS }, (response) => {
      answeredMs = performance.now() - started;
      response.on("data", () => undefined);
      response.on("end", () =>
        resolve({
          kind,
          status: response.statusCode ?? 0,
          ms: performance.now() - started,
          answeredMs,
          retryAfter: response.headers["retry-after"] !== undefined,
        }),
      );
      response.on("error", () => resolve({ kind, status: "error", ms: performance.now() - started, answeredMs, retryAfter: false }));
    });
    request.on("timeout", () => {
      request.destroy();
      resolve({ kind, status: "timeout", ms: performance.now() - started, answeredMs, retryAfter: false });
    });
    request.on("error", () => resolve({ kind, status: "error", ms: performance.now() - started, answeredMs, retryAfter: false }));
    request.end(options.body);
  });
}

async function runChild() {
  const { startSeededApp } = await import("./load.ts");
  const workers = os.availableParallelism();
  console.log(`\nOverload: ${CONNECTIONS} connections for ${SECONDS} s (home, library, password sign-in, 256 KiB download), app with ${workers} workers`);
  const app = await startSeededApp({ workers, clientIpHeader: CLIENT_HEADER, extraSeed: fileURLToPath(import.meta.url) });
  try {
    const { emails } = app.extra as OverloadSeed;
    const outcomes: Outcome[] = [];
    const deadline = performance.now() + SECONDS * 1000;
    const client = async (index: number) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const address = { [CLIENT_HEADER]: `10.${Math.floor(index / 250)}.${index % 250}.1` };
      const login = JSON.stringify({ email: emails[index], password: PASSWORD });
      try {
        while (performance.now() < deadline) {
          outcomes.push(await send(agent, `${app.base}/`, { headers: address }, "page"));
          outcomes.push(await send(agent, `${app.base}/library`, { headers: { ...address, Cookie: app.cookie } }, "page"));
          outcomes.push(
            await send(
              agent,
              `${app.base}/api/auth/login`,
              { method: "POST", headers: { ...address, "Content-Type": "application/json", Origin: app.base }, body: login },
              "sign-in",
            ),
          );
          outcomes.push(await send(agent, `${app.base}/api/download/${app.freePostId}`, { headers: { ...address, Cookie: app.cookie } }, "download"));
        }
      } finally {
        agent.destroy();
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, index) => client(index)));

    const byStatus = new Map<string, number>();
    for (const outcome of outcomes) byStatus.set(String(outcome.status), (byStatus.get(String(outcome.status)) ?? 0) + 1);
    // Unanswered: no response head within 5 s (a download whose bytes take longer was answered).
    const unanswered = outcomes.filter((outcome) => outcome.answeredMs > UNANSWERED_MS).length;
    const refused = outcomes.filter((outcome) => outcome.status === 503 && outcome.retryAfter).length;
    const failures = outcomes.filter(
      (outcome) =>
        outcome.status === "error" || (typeof outcome.status === "number" && outcome.status >= 500 && !(outcome.status === 503 && outcome.retryAfter)),
    ).length;
    const signIns = outcomes.filter((outcome) => outcome.kind === "sign-in");
    const admitted = signIns
      .filter((outcome) => typeof outcome.status === "number" && outcome.status !== 503 && outcome.status !== 429)
      .map((outcome) => outcome.ms);
    admitted.sort((a, b) => a - b);
    const signedIn = signIns.filter((outcome) => outcome.status === 200).length;
    const allMs = outcomes.filter((outcome) => typeof outcome.status === "number").map((outcome) => outcome.ms);
    allMs.sort((a, b) => a - b);
    const signInP99 = percentile(admitted, 0.99);

    console.log(
      `requests               ${outcomes.length} in ${SECONDS} s: ${(outcomes.length / SECONDS).toFixed(0)} req/s; latency p50 ${percentile(allMs, 0.5).toFixed(0)} ms, p99 ${percentile(allMs, 0.99).toFixed(0)} ms`,
    );
    console.log(
      `status counts          ${[...byStatus.entries()]
        .sort()
        .map(([status, n]) => `${status}: ${n}`)
        .join(", ")}`,
    );
    console.log(
      `refused (503 + Retry-After) ${refused} (${((refused / Math.max(1, outcomes.length)) * 100).toFixed(1)}%); sign-ins ${signIns.length}, ${signedIn} signed in`,
    );
    for (const kind of ["page", "sign-in", "download"] as const) {
      const mine = outcomes.filter((outcome) => outcome.kind === kind);
      const ms = mine.map((outcome) => outcome.ms).sort((a, b) => a - b);
      const answered = mine.map((outcome) => outcome.answeredMs).sort((a, b) => a - b);
      const statuses = new Map<string, number>();
      for (const outcome of mine) statuses.set(String(outcome.status), (statuses.get(String(outcome.status)) ?? 0) + 1);
      console.log(
        `${kind.padEnd(22)} ${mine.length}: answered p50 ${percentile(answered, 0.5).toFixed(0)} ms, p99 ${percentile(answered, 0.99).toFixed(0)} ms; done p99 ${percentile(ms, 0.99).toFixed(0)} ms; ${[
          ...statuses.entries(),
        ]
          .sort()
          .map(([status, n]) => `${status}: ${n}`)
          .join(", ")}`,
      );
    }
    const lines: (TargetLine & { text: string })[] = [
      {
        name: "overload unanswered",
        ok: unanswered === 0,
        text: `requests unanswered after ${UNANSWERED_MS / 1000} s: ${unanswered} of ${outcomes.length} (target 0)`,
      },
      { name: "overload 5xx", ok: failures === 0, text: `5xx other than 503 with Retry-After, and connection errors: ${failures} (target 0)` },
      {
        name: "overload sign-in p99",
        ok: admitted.length > 0 && signInP99 <= SIGN_IN_P99_TARGET_MS,
        text: `admitted sign-ins: ${admitted.length}, p50 ${percentile(admitted, 0.5).toFixed(0)} ms, p99 ${signInP99.toFixed(0)} ms (target p99 <= ${SIGN_IN_P99_TARGET_MS} ms)`,
      },
    ];
    reportTargets(lines);
  } finally {
    await app.stop();
  }
}

/** The benchmark in a child process of its own (its database connections never mix with another's). */
export function benchOverload(): Promise<TargetLine[]> {
  return runBenchChild(fileURLToPath(import.meta.url), "overload");
}

await runAsScript(import.meta.url, runChild, benchOverload);
