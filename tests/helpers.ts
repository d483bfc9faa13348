// Shared helpers for integration tests: users, sessions and requests against route modules.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { spawn } from "node:child_process";
import path from "node:path";
import bcrypt from "bcryptjs";
import pg from "pg";
import { db } from "~/db.server";
import type { Prisma, User } from "~/generated/prisma/client";
import { createUserSession } from "~/models/session.server";
import { runAsViewer } from "~/request-context.server";

let counter = 0;

/** A verified email user; pass overrides for anything else. Password defaults to "Password1!". */
export async function createTestUser(overrides: Partial<Prisma.UserCreateInput> & { password?: string | null } = {}): Promise<User> {
  counter += 1;
  const { password = "Password1!", ...data } = overrides;
  const mailVerified = data.mailVerified ?? true;
  return db.user.create({
    data: {
      email: `user${counter}-${Date.now()}@example.com`,
      fullName: `Test User ${counter}`,
      mailVerified,
      // A verified test account proved its address with a code unless the test says otherwise.
      emailVerifiedBy: mailVerified ? "CODE" : null,
      passwordHash: password ? await bcrypt.hash(password, 4) : null,
      ...data,
    },
  });
}

/** A Cookie header value carrying a fresh session of the user. */
export async function sessionCookie(userId: string): Promise<string> {
  const setCookie = await createUserSession(userId);
  return setCookie.split(";")[0]!;
}

type CallOptions = {
  method?: string;
  path?: string;
  params?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string> | FormData;
  body?: BodyInit;
  cookie?: string;
  headers?: Record<string, string>;
  /** The load context the HTTP server passes (e.g. the connection's `clientAddress`). */
  context?: Record<string, unknown>;
};

export function buildRequest({ method = "GET", path = "/", json, form, body, cookie, headers = {} }: CallOptions): Request {
  const init: RequestInit & { duplex?: string } = { method, headers: { ...headers } };
  const requestHeaders = init.headers as Record<string, string>;
  if (cookie) requestHeaders.Cookie = cookie;
  if (json !== undefined) {
    requestHeaders["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (form) {
    init.body = form instanceof FormData ? form : new URLSearchParams(form);
  } else if (body !== undefined) {
    init.body = body;
  }
  return new Request(`http://localhost:3999${path}`, init);
}

export type RouteModule = {
  loader?: (args: LoaderFunctionArgs) => unknown;
  action?: (args: ActionFunctionArgs) => unknown;
};

/** Calls a route module's loader (GET/HEAD) or action (other methods) like Remix would. */
export async function callRoute(route: RouteModule, options: CallOptions = {}): Promise<Response> {
  const request = buildRequest(options);
  const args = { request, params: options.params ?? {}, context: options.context ?? {} };
  const handler = request.method === "GET" || request.method === "HEAD" ? route.loader : route.action;
  if (!handler) throw new Error(`route has no ${request.method === "GET" ? "loader" : "action"}`);
  try {
    // As the HTTP server does: the viewer's headers at hand (dates in their locale and zone).
    return answerAsResponse(await runAsViewer(request.headers, () => handler(args)));
  } catch (thrown) {
    if (thrown instanceof Response || isDataWithInit(thrown)) return answerAsResponse(thrown);
    throw thrown;
  }
}

/** Single fetch's `data(value, init)` (returned or thrown by a loader or action); checked as Remix's router checks it. */
function isDataWithInit(value: unknown): value is { type: "DataWithResponseInit"; data: unknown; init: ResponseInit | null } {
  return typeof value === "object" && value !== null && "type" in value && "data" in value && "init" in value && value.type === "DataWithResponseInit";
}

/**
 * A loader's or action's answer as a Response the tests can read: a Response as it is; `data(value,
 * init)` as its value with that status and those headers (Remix answers them so); a plain value with
 * 200. The value is read back as JSON (a Date as its ISO string), though the browser gets it through
 * single fetch's turbo-stream.
 */
export function answerAsResponse(answer: unknown): Response {
  if (answer instanceof Response) return answer;
  if (isDataWithInit(answer)) return Response.json(answer.data, answer.init ?? undefined);
  return Response.json(answer);
}

export async function readJsonBody<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * Resolves once the app's own connection pool has had no checked-out connection and no waiter
 * for several event-loop turns in a row. Work the app starts without awaiting it (a write
 * started by a request whose response has already gone out) takes its connection within a few microtasks of
 * being started and holds it until it commits, so after this resolves such work has either
 * committed or never started: a test can then assert exact counts, absence included, instead
 * of sleeping and hoping the write was not slower than the sleep.
 */
export async function appDatabaseSettled(timeoutMs = 15_000): Promise<void> {
  const shared = (globalThis as { __db?: { pool?: { totalCount: number; idleCount: number; waitingCount: number } } }).__db;
  const pool = shared?.pool;
  if (!pool) throw new Error("appDatabaseSettled: the app's pool is not on globalThis.__db (app/db.server.ts changed?)");
  const deadline = Date.now() + timeoutMs;
  for (let quietTurns = 0; quietTurns < 5;) {
    await new Promise((resolve) => setImmediate(resolve));
    const busy = pool.totalCount !== pool.idleCount || pool.waitingCount > 0;
    quietTurns = busy ? 0 : quietTurns + 1;
    if (busy && Date.now() > deadline) throw new Error(`the app's database work did not settle within ${timeoutMs} ms`);
  }
}

/** The environment of a production server started by a test: on a free loopback port, quiet. */
export async function productionServerEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  const { freePort } = await import("../scripts/app-server");
  return { ...process.env, PORT: String(await freePort()), HOST: "127.0.0.1", REQUEST_LOG: "false", ...extra, NODE_ENV: "production" };
}

/** Runs `node args` until it exits (killed after `timeoutMs`); answers its exit code and output. */
export async function runUntilExit(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, { cwd: path.resolve(import.meta.dirname, ".."), env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

/**
 * The SQL texts sent to PostgreSQL that contain `fragment`, while `run` runs (every pg client:
 * Prisma's adapter and the plain-SQL lookups alike). For tests that count round trips.
 */
export async function queriesDuring<T>(fragment: string, run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const queries: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with each client as `this`, and put back after.
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text?.includes(fragment)) queries.push(text);
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await run(), queries };
  } finally {
    pg.Client.prototype.query = query;
  }
}
