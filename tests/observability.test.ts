// The production server's logs and metrics (server/observe.ts): every request
// gets its own id (X-Request-Id, on its JSON log line with route id, status and duration, and on
// its error page), a refused Host and /metrics too; an unexpected error is a JSON line with that
// id; /metrics shows what the workers of the cluster counted, by route id and status, with the
// mail outbox's backlog and the job runs (an admin's forced sync that failed among them), and
// answers this machine or the metrics token only.
// Needs a build (npm test builds first; REMIX_BUILD_DIR picks another one).
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { appServerArgs, freePort } from "../scripts/app-server";
import { isLoopback, metricsAllowed } from "~/metrics-cluster.server";
import { startFakePatreonApi, type FakePatreonApi } from "./fakes/patreon-api";
import { createTestUser, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";
import { logLines, requestLineIn } from "./server-log";

const root = path.resolve(import.meta.dirname, "..");
const METRICS_TOKEN = "metrics-test-token-0123456789abcdef";

type Server = { child: ChildProcess; base: string; port: number; output: () => string };

async function startServer(extra: Record<string, string>, ready: string): Promise<Server> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { DISABLE_JOBS: _jobs, HOST: _host, ...inherited } = process.env;
  const child = spawn(process.execPath, appServerArgs(), {
    cwd: root,
    // No HOST: every interface, so a test can also come from this machine's network address.
    env: { ...inherited, NODE_ENV: "production", PORT: String(port), APP_URL: base, INTERVAL_MINUTES: "0", METRICS_TOKEN, ...extra },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, base, port, output: () => output };
}

async function stop(server: Server | undefined) {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}

/** One sample's value in Prometheus text, e.g. `name{route="x",status="200"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function metrics(base: string): Promise<string> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  // Prometheus' text format, version 0.0.4.
  expect(response.headers.get("content-type")).toMatch(/^text\/plain;.*\bversion=0\.0\.4/);
  return response.text();
}

/** A GET of `urlPath` sent as is, with the given Host header (fetch sets its own). */
function getWithHost(port: number, urlPath: string, host: string): Promise<{ status: number; requestId: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: urlPath, headers: { Host: host }, agent: false }, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode!, requestId: response.headers["x-request-id"] as string | undefined, body }));
      })
      .on("error", reject);
  });
}

/** The line of `id`'s request (its request line, not another line it wrote), once written. */
async function requestLine(server: Server, id: string): Promise<Record<string, unknown>> {
  const find = () => requestLineIn(server.output(), id);
  await expect.poll(find, { timeout: 5_000 }).toBeDefined();
  return find()!;
}

/** A GET from `address` (a local address of this machine) to the server's port. */
function getFrom(address: string, port: number, urlPath: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: address, port, path: urlPath, headers, agent: false, localAddress: address }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      })
      .on("error", reject);
  });
}

/** An IPv4 address of this machine that is not loopback, if it has one. */
const networkAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;

describe("who may read /metrics", () => {
  it("this machine by the socket's address; another only with the metrics token, when one is set", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopback(address)).toBe(true);
    for (const address of ["192.0.2.7", "::ffff:10.0.0.1", "fd00::2", undefined]) expect(isLoopback(address)).toBe(false);
    expect(metricsAllowed("::ffff:127.0.0.1", undefined, undefined)).toBe(true);
    expect(metricsAllowed("192.0.2.7", undefined, undefined)).toBe(false);
    // A header naming a local client counts for nothing: only the socket's address does.
    expect(metricsAllowed("192.0.2.7", undefined, "t".repeat(32))).toBe(false);
    expect(metricsAllowed("192.0.2.7", `Bearer ${"t".repeat(32)}`, "t".repeat(32))).toBe(true);
    expect(metricsAllowed("192.0.2.7", `bearer ${"t".repeat(32)}`, "t".repeat(32))).toBe(true);
    expect(metricsAllowed("192.0.2.7", `Bearer ${"t".repeat(31)}x`, "t".repeat(32))).toBe(false);
    expect(metricsAllowed("192.0.2.7", `Bearer ${"t".repeat(32)}`, undefined)).toBe(false);
  });
});

describe("the cluster's request ids, logs and metrics", () => {
  let server: Server;
  let platform: FakePatreonApi;

  beforeAll(async () => {
    // The support platform an admin's forced sync reads (its timer is off: INTERVAL_MINUTES=0).
    platform = await startFakePatreonApi();
    // One request at a time per worker and no queue: a burst is partly refused with 503.
    server = await startServer(
      {
        WEB_CONCURRENCY: "2",
        REQUEST_LOG: "true",
        MAX_IN_FLIGHT_REQUESTS: "1",
        MAX_QUEUED_REQUESTS: "0",
        PATREON_API_URL: platform.apiUrl,
        PATREON_CREATOR_ACCESS_TOKEN: "creator-token",
      },
      "(2 workers)",
    );
  }, 90_000);

  afterAll(async () => {
    await stop(server);
    await platform?.stop();
  });

  it("gives each request its own id, logs it with route id, status, duration and account, and shows it on the error page", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const page = await fetch(`${server.base}/library`, { headers: { Cookie: cookie, "X-Request-Id": "forged-by-the-client" } });
    expect(page.status).toBe(200);
    const id = page.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const missing = await fetch(`${server.base}/no-such-page-here`);
    expect(missing.status).toBe(404);
    const missingId = missing.headers.get("x-request-id")!;
    expect(missingId).not.toBe(id);
    // The error page names its own request, for a report.
    expect(await missing.text()).toContain(`quote the request id <code data-request-id="true">${missingId}</code>`);

    await expect.poll(() => logLines(server.output()).find((line) => line.requestId === missingId), { timeout: 5_000 }).toBeDefined();
    const lines = logLines(server.output());
    expect(lines.some((line) => line.requestId === "forged-by-the-client")).toBe(false);
    const signedIn = lines.find((line) => line.requestId === id)!;
    expect(signedIn).toMatchObject({ level: "info", method: "GET", path: "/library", route: "routes/library", status: 200, accountId: user.id });
    expect(signedIn.durationMs).toEqual(expect.any(Number));
    expect(typeof signedIn.time).toBe("string");
    const guest = lines.find((line) => line.requestId === missingId)!;
    expect(guest).toMatchObject({ path: "/no-such-page-here", route: "routes/$", status: 404 });
    expect(guest).not.toHaveProperty("accountId");
  });

  it("counts the requests of every worker by route id and status, 5xx answers, downloads and the mail outbox", async () => {
    const before = await metrics(server.base);
    const count = (text: string, route: string, status: number) =>
      sample(text, `clib_http_request_duration_seconds_count{route="${route}",status="${status}"}`) ?? 0;

    // Sequential requests on new connections, so both workers answer some.
    for (let index = 0; index < 6; index++) expect((await fetch(`${server.base}/infos`, { headers: { Connection: "close" } })).status).toBe(200);
    // A burst larger than the workers take: some are refused as busy (503).
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const response = await fetch(`${server.base}/login`, { headers: { Connection: "close" } });
        return { status: response.status, id: response.headers.get("x-request-id"), body: await response.text() };
      }),
    );
    const burst = answers.map((answer) => answer.status);
    const refused = burst.filter((status) => status === 503).length;
    expect(refused).toBeGreaterThan(0);
    expect(burst.filter((status) => status === 200)).toHaveLength(12 - refused);
    // The busy page names its own request, as every error page does.
    for (const busy of answers.filter((answer) => answer.status === 503)) {
      expect(busy.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(busy.body).toContain("The server is busy");
      expect(busy.body).toContain(`quote the request id <code data-request-id>${busy.id}</code>`);
    }

    // A download of a free post's file, and a mail waiting in the outbox for 10 minutes.
    const post = await createPost({ paid: false, fileSize: 10_000 });
    const user = await createTestUser({ tosAccepted: true });
    const download = await fetch(`${server.base}/api/download/${post.id}`, { headers: { Cookie: await sessionCookie(user.id) } });
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBe(10_000);
    await db.outboxMail.create({
      data: {
        idempotencyKey: `metrics-test-${Date.now()}`,
        kind: "code",
        to: "waiting@example.com",
        subject: "Waiting",
        text: "x",
        html: "x",
        giveUpAt: new Date(Date.now() + 3_600_000),
        createdAt: new Date(Date.now() - 600_000),
      },
    });

    const after = await metrics(server.base);
    expect(count(after, "routes/infos", 200) - count(before, "routes/infos", 200)).toBe(6);
    expect(count(after, "routes/login", 200) - count(before, "routes/login", 200)).toBe(12 - refused);
    expect(count(after, "routes/login", 503) - count(before, "routes/login", 503)).toBe(refused);
    expect(
      sample(after, `clib_http_server_errors_total{route="routes/login",status="503"}`)! -
        (sample(before, `clib_http_server_errors_total{route="routes/login",status="503"}`) ?? 0),
    ).toBe(refused);
    // A refusal as busy tells the client to come back: its request line is a warning, not an error.
    await expect
      .poll(() => logLines(server.output()).filter((line) => line.path === "/login" && line.status === 503).length, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(refused);
    const refusals = logLines(server.output()).filter((line) => line.path === "/login" && line.status === 503);
    expect(new Set(refusals.map((line) => line.level))).toEqual(new Set(["warn"]));
    // The download's bytes were counted by the worker that sent them; none is in flight now.
    expect((sample(after, "clib_download_bytes_sent_total") ?? 0) - (sample(before, "clib_download_bytes_sent_total") ?? 0)).toBe(10_000);
    expect(sample(after, "clib_downloads_in_flight")).toBe(0);
    // The outbox's backlog, read by the worker that sends it, once.
    expect(sample(after, "clib_mail_outbox_depth")).toBeGreaterThanOrEqual(1);
    expect(sample(after, "clib_mail_outbox_oldest_age_seconds")).toBeGreaterThanOrEqual(600);
    // The pool, the supervisor's restarts, the jobs' counter and the process metrics.
    expect(sample(after, `clib_db_pool_connections{state="total"}`)).toBeGreaterThan(0);
    expect(sample(after, "clib_worker_restarts_total")).toBe(0);
    expect(after).toContain("# TYPE clib_job_runs_total counter");
    expect(sample(after, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    // /metrics itself is not counted as a request.
    expect(after).not.toContain('route="none"');
    expect(after).not.toContain('route="metrics"');
  });

  it("gives a refused Host and /metrics answers their own id and log line", async () => {
    const refused = await getWithHost(server.port, "/library", "example.com/login#");
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("Invalid Host header.");
    expect(refused.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await requestLine(server, refused.requestId!)).toMatchObject({ level: "info", method: "GET", path: "/library", status: 400 });

    const scrape = await fetch(`${server.base}/metrics`);
    expect(scrape.status).toBe(200);
    const scrapeId = scrape.headers.get("x-request-id")!;
    expect(scrapeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(scrapeId).not.toBe(refused.requestId);
    expect(await requestLine(server, scrapeId)).toMatchObject({ level: "info", method: "GET", path: "/metrics", route: "metrics", status: 200 });
  });

  it("logs an unexpected server error as one JSON line with the id its answer shows", async () => {
    // A table the route reads is gone: not an outage (no 503), a bug's 500.
    await db.$executeRawUnsafe(`ALTER TABLE update_subscriptions RENAME TO update_subscriptions_away`);
    await db.$executeRawUnsafe(`ALTER TABLE tiers RENAME TO tiers_away`);
    try {
      const token = "t".repeat(43);
      // A page (Remix's handleError), its data for a client-side navigation, and an /api route (handleApi).
      for (const [address, status] of [
        [`/unsubscribe/${token}`, 500],
        [`/unsubscribe/${token}.data`, 500],
        ["/api/library/tiers", 500],
      ] as const) {
        const answer = await fetch(`${server.base}${address}`);
        expect(answer.status).toBe(status);
        const id = answer.headers.get("x-request-id")!;
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        if (!address.includes(".data") && !address.startsWith("/api/")) {
          expect(await answer.text()).toContain(`quote the request id <code data-request-id="true">${id}</code>`);
        } else await answer.arrayBuffer();
        await expect.poll(() => logLines(server.output()).filter((line) => line.requestId === id && line.level === "error").length, { timeout: 5_000 }).toBe(2);
        const [error, request] = logLines(server.output()).filter((line) => line.requestId === id && line.level === "error");
        // The error first, with what went wrong; then the request's own line.
        expect(error).toMatchObject({ level: "error", err: { message: expect.stringMatching(/update_subscriptions|tiers/) } });
        expect(typeof error!.time).toBe("string");
        expect(request).toMatchObject({ level: "error", path: address.split("?")[0], status });
      }
    } finally {
      await db.$executeRawUnsafe(`ALTER TABLE update_subscriptions_away RENAME TO update_subscriptions`);
      await db.$executeRawUnsafe(`ALTER TABLE tiers_away RENAME TO tiers`);
    }
  });

  it("counts an admin's forced sync that the support platform failed as a failed job run, logged with its run id", async () => {
    const runs = (text: string, outcome: string) => sample(text, `clib_job_runs_total{job="interval",outcome="${outcome}"}`) ?? 0;
    const before = await metrics(server.base);
    platform.failPage(0, 500);
    try {
      const admin = await createTestUser({ isAdmin: true });
      const forced = await fetch(`${server.base}/api/admin/force-interval`, {
        method: "POST",
        headers: { Cookie: await sessionCookie(admin.id), Origin: server.base },
      });
      // The answer is as before: 502 with the sync's summary.
      expect(forced.status).toBe(502);
      expect(await forced.json()).toMatchObject({
        error: "Error forcing interval.",
        details: expect.stringMatching(/answered 500/),
        summary: { status: "failed" },
      });
      const requestId = forced.headers.get("x-request-id")!;

      const after = await metrics(server.base);
      expect(runs(after, "failed") - runs(before, "failed")).toBe(1);
      expect(runs(after, "ok") - runs(before, "ok")).toBe(0);
      await expect.poll(() => logLines(server.output()).find((line) => line.job === "interval" && line.msg === "job failed"), { timeout: 5_000 }).toBeDefined();
      const lines = logLines(server.output()).filter((line) => line.job === "interval");
      const failed = lines.find((line) => line.msg === "job failed")!;
      expect(failed).toMatchObject({
        level: "error",
        trigger: "admin",
        requestId,
        syncStatus: "failed",
        pages: 0,
        err: { message: expect.stringMatching(/answered 500/) },
      });
      expect(failed.runId).toMatch(/^[0-9a-f-]{36}$/);
      expect(lines.find((line) => line.msg === "job started")).toMatchObject({ level: "info", runId: failed.runId, trigger: "admin", requestId });
      expect(await requestLine(server, requestId)).toMatchObject({ path: "/api/admin/force-interval", status: 502, accountId: admin.id });
      // The run's own row and its audit entry, as before.
      expect(await db.jobRun.findFirst({ where: { job: "interval", trigger: "admin" }, orderBy: { startedAt: "desc" } })).toMatchObject({ status: "failed" });
      expect(await db.auditEntry.count({ where: { action: "interval.force", actorId: admin.id } })).toBe(1);
    } finally {
      platform.failPage(null);
    }
  });

  it("counts a worker's restart", async () => {
    const pids = (await import("node:child_process"))
      .spawnSync("pgrep", ["-P", String(server.child.pid)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean);
    process.kill(Number(pids[0]), "SIGKILL");
    await expect.poll(async () => sample(await metrics(server.base), "clib_worker_restarts_total"), { timeout: 20_000 }).toBe(1);
    expect(server.output()).toMatch(/"level":"error".*exited \(SIGKILL\); starting another/);
  });

  it("logs each background job run's start and end under one run id", async () => {
    // The mail outbox's sender runs every 15 s in the worker that has the jobs.
    await expect
      .poll(() => logLines(server.output()).find((line) => line.job === "mail-outbox" && line.msg === "job finished"), { timeout: 30_000, interval: 500 })
      .toBeDefined();
    const lines = logLines(server.output()).filter((line) => line.job === "mail-outbox");
    const end = lines.find((line) => line.msg === "job finished")!;
    expect(end.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(end.durationMs).toEqual(expect.any(Number));
    expect(lines.find((line) => line.msg === "job started" && line.runId === end.runId)).toMatchObject({ level: "info" });
  });

  it.skipIf(!networkAddress)("refuses /metrics to another address without the token, and answers it with the token", async () => {
    const address = networkAddress!;
    expect(await getFrom(address, server.port, "/metrics")).toBe(403);
    expect(await getFrom(address, server.port, "/metrics", { Authorization: "Bearer not-the-token-not-the-token" })).toBe(403);
    // A header claiming a local client changes nothing.
    expect(await getFrom(address, server.port, "/metrics", { "X-Forwarded-For": "127.0.0.1" })).toBe(403);
    expect(await getFrom(address, server.port, "/metrics", { Authorization: `Bearer ${METRICS_TOKEN}` })).toBe(200);
    expect(await getFrom("127.0.0.1", server.port, "/metrics")).toBe(200);
  });
});

describe("REQUEST_LOG=false", () => {
  let server: Server;

  beforeAll(async () => {
    server = await startServer({ WEB_CONCURRENCY: "1", REQUEST_LOG: "false", DISABLE_JOBS: "1" }, "[server] http://");
  }, 90_000);

  afterAll(() => stop(server));

  it("writes no request lines, and still counts the requests", async () => {
    const page = await fetch(`${server.base}/infos`);
    expect(page.status).toBe(200);
    const id = page.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sample(await metrics(server.base), `clib_http_request_duration_seconds_count{route="routes/infos",status="200"}`)).toBe(1);
    // No request line; a line the app wrote while answering (a slow query) would still carry the id.
    expect(logLines(server.output()).filter((line) => "method" in line && "status" in line)).toEqual([]);
  });
});

describe("a worker's warm-up (server/worker.ts)", () => {
  let server: Server | undefined;

  afterAll(() => stop(server));

  it("serves the library and the home page to itself before it listens, and is counted like any request", async () => {
    server = await startServer({ WEB_CONCURRENCY: "1", REQUEST_LOG: "true", DISABLE_JOBS: "1" }, "[server] http://");
    const output = server.output();
    // The lines before the announcement's own (a JSON line too).
    const beforeListening = logLines(output.slice(0, output.lastIndexOf("\n", output.indexOf("[server] http://")) + 1)).filter((line) => "status" in line);
    expect(beforeListening.map((line) => [line.method, line.path, line.route, line.status])).toEqual([
      ["GET", "/library", "routes/library", 200],
      ["GET", "/", "routes/_index", 200],
    ]);
    const counted = await metrics(server.base);
    expect(sample(counted, `clib_http_request_duration_seconds_count{route="routes/library",status="200"}`)).toBe(1);
    expect(sample(counted, `clib_http_request_duration_seconds_count{route="routes/_index",status="200"}`)).toBe(1);
  }, 90_000);

  it("does not keep a worker from starting when the database is down: it listens and says so with 503", async () => {
    await stop(server);
    const closedPort = await freePort();
    server = await startServer(
      { WEB_CONCURRENCY: "1", REQUEST_LOG: "true", DISABLE_JOBS: "1", DATABASE_URL: `postgresql://nobody:nothing@127.0.0.1:${closedPort}/none` },
      "[server] http://",
    );
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).toMatch(/^\d+$/);
  }, 90_000);
});
