// Overload: a worker works on at most MAX_IN_FLIGHT_REQUESTS requests and queues at most
// MAX_QUEUED_REQUESTS, each for at most REQUEST_QUEUE_TIMEOUT_MS; past that a request is
// answered at once with 503 and Retry-After instead of waiting. Here one worker with one turn
// and one place in the queue, the turn held by a sign-in whose body is still arriving. A request
// admitted from the queue goes on in its own request scope: its log line names its own account.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { appServerArgs, ensureAppBuilt, freePort, waitForHealth } from "../scripts/app-server";
import { createTestUser, sessionCookie } from "./helpers";
import { requestLineIn } from "./server-log";

const root = path.resolve(import.meta.dirname, "..");
const BUSY = "The server is busy. Please try again in a few seconds.";

let server: ChildProcess;
let base = "";
let port = 0;
let output = "";

beforeAll(async () => {
  ensureAppBuilt();
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, appServerArgs(), {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      REQUEST_LOG: "true",
      WEB_CONCURRENCY: "1",
      DISABLE_JOBS: "1",
      MAX_IN_FLIGHT_REQUESTS: "1",
      MAX_QUEUED_REQUESTS: "2",
      // Twelve times a password route's own wait (PASSWORD_ROUTE_QUEUE_WAIT_MS), so the two are told apart by order.
      REQUEST_QUEUE_TIMEOUT_MS: "3000",
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitForHealth(`${base}/healthz`, server);
}, 240_000);

afterAll(() => {
  if (server && server.exitCode === null) server.kill("SIGKILL");
});

const SLOW_SIGN_IN_BODY = "intent=login&email=slow%40example.com&password=Password1%21";

/** A sign-in whose body has not all arrived: the server works on it (its one turn) until it does. */
async function slowSignIn(): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(
    `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${SLOW_SIGN_IN_BODY.length}\r\nConnection: close\r\n\r\n${SLOW_SIGN_IN_BODY.slice(0, 10)}`,
  );
  return socket;
}

it("answers 503 with Retry-After at once when the queue is full, after a short wait in it (shorter for a sign-in), and serves again once the turn is free", async () => {
  const holder = await slowSignIn();
  // Give the server a moment to take the sign-in in: wait until a page is queued behind it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  let pageSettled = false;
  const queued = fetch(`${base}/`).finally(() => (pageSettled = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const queuedSignIn = fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "queued@example.com", password: "Password1!" }),
  });
  await new Promise((resolve) => setTimeout(resolve, 50));

  // The queue's two places are taken: refused at once, the API in JSON.
  const full = await fetch(`${base}/api/library/posts`);
  expect(full.status).toBe(503);
  expect(Number(full.headers.get("Retry-After"))).toBeGreaterThan(0);
  expect(await full.json()).toEqual({ error: BUSY });

  // The sign-in, queued after the page, hears "busy" first: a password route waits less for a
  // turn, so an admitted sign-in keeps its answer budget and a late one costs no hashing.
  const signIn = await queuedSignIn;
  expect(signIn.status).toBe(503);
  expect(Number(signIn.headers.get("Retry-After"))).toBeGreaterThan(0);
  expect(await signIn.json()).toEqual({ error: BUSY });
  expect(pageSettled).toBe(false);

  // The queued page waited its own (longer) time and was refused too.
  const waited = await queued;
  expect(waited.status).toBe(503);
  expect(Number(waited.headers.get("Retry-After"))).toBeGreaterThan(0);
  expect(await waited.text()).toContain(BUSY);

  // Health checks answer whatever the load.
  expect((await fetch(`${base}/healthz`)).status).toBe(200);

  // The sign-in's turn ends with its connection; the next request is served.
  holder.destroy();
  let status = 0;
  for (let tries = 0; tries < 50 && status !== 200; tries++) {
    status = (await fetch(`${base}/`)).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(status).toBe(200);
}, 60_000);

it("gives a sign-in whose body arrives slowly its whole answer budget from when the body is in, not from its first byte", async () => {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const body = JSON.stringify({ email: "slow-body@example.com", password: "Password1!" });
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
  const closed = new Promise((resolve) => socket.once("close", resolve));
  socket.write(
    `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
  );
  // The rest comes later than the whole budget (PASSWORD_ANSWER_BUDGET_MS) after the first byte.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  socket.write(body.slice(10));
  await closed;
  // An unknown account: the spec's refusal after a real password check, not "busy".
  expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
  expect(answer).not.toContain(BUSY);
}, 60_000);

it("runs a request admitted from the queue in its own scope: its log line names its own account, not the request whose end admitted it", async () => {
  const reader = await createTestUser();
  const cookie = await sessionCookie(reader.id);
  const holder = await slowSignIn();
  let holderAnswer = "";
  holder.on("data", (chunk: Buffer) => (holderAnswer += chunk.toString("latin1")));
  const holderClosed = new Promise((resolve) => holder.once("close", resolve));
  // Give the server a moment to take the sign-in in, then queue a signed-in page behind it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const queued = fetch(`${base}/library`, { headers: { Cookie: cookie } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  // The page is waiting in the queue: with one more request there, the next one finds it full.
  const filler = fetch(`${base}/`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await fetch(`${base}/api/library/posts`)).status).toBe(503);
  // The rest of the sign-in's body: it is answered, and its end admits the page.
  holder.write(SLOW_SIGN_IN_BODY.slice(10));
  await holderClosed;
  const page = await queued;
  expect(page.status).toBe(200);
  expect((await filler).status).toBe(200);
  const holderId = /\r\nX-Request-Id: ([0-9a-f-]+)\r\n/i.exec(holderAnswer)?.[1];
  const pageId = page.headers.get("x-request-id")!;
  expect(holderId).toBeDefined();
  await expect.poll(() => requestLineIn(output, pageId), { timeout: 5_000 }).toBeDefined();
  await expect.poll(() => requestLineIn(output, holderId!), { timeout: 5_000 }).toBeDefined();
  expect(requestLineIn(output, pageId)).toMatchObject({ path: "/library", status: 200, accountId: reader.id });
  expect(requestLineIn(output, holderId!)).toMatchObject({ path: "/login" });
  expect(requestLineIn(output, holderId!)).not.toHaveProperty("accountId");
}, 60_000);
