// Drives `npm start` (scripts/start.ts) as a person would, for the tests of the first run and of
// its stops: a process group of its own, its output kept, and a walk over every page and account.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { expect } from "vitest";
import { projectRoot } from "../scripts/app-server.ts";
import { DEMO_ADMIN, DEMO_FAN, DEMO_SUPPORTER } from "../prisma/demo-content";

export const READY = "Creator Library is running at";
export const START_TIMEOUT_MS = 120_000;

export type Site = { base: string; child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** Only what a newcomer's shell would have: no test database, secret or NODE_ENV of this run. */
export function newcomerEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  const { PATH, HOME, LANG, TMPDIR, REMIX_BUILD_DIR } = process.env;
  return { PATH, HOME, LANG, TMPDIR, REMIX_BUILD_DIR, REQUEST_LOG: "true", ...extra };
}

/** Where and as whom a start runs: by default scripts/start.ts of this checkout, as this process. */
export type Launch = { cwd?: string; command?: [string, string[]]; user?: { uid: number; gid: number } };

/** Runs `npm start` (scripts/start.ts) in a process group of its own, as a terminal would. */
export function launch(
  env: Record<string, string | undefined>,
  how: Launch = {},
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const [program, args] = how.command ?? [process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts/start.ts")]];
  const child = spawn(program, args, {
    cwd: how.cwd ?? projectRoot,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...how.user,
  });
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

export async function startSite(env: Record<string, string | undefined>, how?: Launch): Promise<Site> {
  const port = Number(env.PORT);
  const launched = launch(env, how);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!launched.output().includes(READY)) {
    if (launched.child.exitCode !== null) throw new Error(`npm start exited (${launched.child.exitCode}):\n${launched.output()}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready in time:\n${launched.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base: `http://127.0.0.1:${port}`, ...launched };
}

/** Ctrl-C in the terminal: SIGINT to the whole process group. */
export function pressCtrlC(site: Pick<Site, "child">) {
  process.kill(-site.child.pid!, "SIGINT");
}

export function killGroup(site: Pick<Site, "child"> | undefined) {
  if (site?.child.exitCode === null) {
    try {
      process.kill(-site.child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Lines of the server's output that report a failure. */
export function errorLines(output: string): string[] {
  // A slow query is a note about speed, not a failure (its SQL may name a column "error"). A
  // sign-in refused as busy (a warning: 503 with Retry-After) is what signIn() below retries.
  return output.split("\n").filter((line) => !line.includes("slow query") && !isBusySignIn(line) && /error|exception|fatal|unhandled|\s5\d\d\s/i.test(line));
}

function isBusySignIn(line: string): boolean {
  return line.includes('"level":"warn"') && line.includes('"path":"/api/auth/login"') && line.includes('"status":503');
}

export type Account = { email: string; password: string; admin?: boolean };
export const ACCOUNTS: Account[] = [{ ...DEMO_ADMIN, admin: true }, DEMO_SUPPORTER, DEMO_FAN];

export const GUEST_PAGES = [
  "/",
  "/library",
  "/library?filter=free",
  "/infos",
  "/inspiration-vote",
  "/login",
  "/forgot-password",
  "/admin",
  "/healthz",
  "/api/library/posts",
  "/api/library/tiers",
  "/api/panels",
  "/api/inspiration/panels",
  "/api/inspiration/config",
  "/api/auth/user",
];
export const ACCOUNT_PAGES = [...GUEST_PAGES, "/login?callback=" + encodeURIComponent("http://127.0.0.1/x")];
export const ADMIN_PAGES = ["/api/admin/users", "/api/admin/posts"];

/** Signs the account in with its password, as the login form's API does. */
/**
 * Signs in as a client should: a 503 with Retry-After (the password threads busy, as on a machine
 * running the rest of the suite beside a server that has just started) is tried again after the
 * time it names, at most three times; any other answer is returned as it is.
 */
export async function signIn(base: string, account: Account): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    const retryAfter = Number(response.headers.get("Retry-After"));
    if (response.status !== 503 || !(retryAfter > 0) || attempt === 4) return response;
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfter, 5) * 1_000));
  }
}

export type LibraryPost = { postId: string; paid_content: boolean; unlocked: boolean; fileName: string | null };

/** Walks the site as a guest and as every demo account; answers each 5xx seen. */
export async function walk(base: string): Promise<string[]> {
  const failures: string[] = [];
  const get = async (pathname: string, cookie?: string) => {
    const response = await fetch(base + pathname, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
    if (response.status >= 500) failures.push(`${response.status} GET ${pathname}${cookie ? " (signed in)" : ""}`);
    return response;
  };
  for (const page of GUEST_PAGES) await (await get(page)).arrayBuffer();

  for (const account of ACCOUNTS) {
    const login = await signIn(base, account);
    expect(login.status, `sign-in of ${account.email}`).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;

    for (const page of [...ACCOUNT_PAGES, ...(account.admin ? ADMIN_PAGES : [])]) {
      const response = await get(page, cookie);
      await response.arrayBuffer();
      if (page === "/admin") expect(response.status, `/admin as ${account.email}`).toBe(account.admin ? 200 : 302);
      if (page === "/api/auth/user") expect(response.status).toBe(200);
    }
    // A burst of parallel requests, as a browser opening several tabs.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        get(["/library", "/api/library/posts", "/api/auth/user", "/"][index % 4]!, cookie).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    expect(burst.every((status) => status === 200)).toBe(true);

    // An owned file, downloaded (after the terms, as the library's popup asks): a paid post the
    // account may download, else a free one.
    const { user } = (await login.json()) as { user: { _id: string } };
    const terms = await fetch(`${base}/api/library/accept-tos/${user._id}`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ tosAccepted: true }),
    });
    expect(terms.status).toBe(200);
    const listing = (await (await get("/api/library/posts", cookie)).json()) as LibraryPost[] | { posts: LibraryPost[] };
    const posts = Array.isArray(listing) ? listing : listing.posts;
    const owned = posts.filter((post) => post.unlocked && post.fileName);
    const paid = owned.find((post) => post.paid_content);
    if (!account.admin && account !== DEMO_FAN) expect(paid, `${account.email} owns a paid post`).toBeDefined();
    let file: Response;
    if (paid) {
      file = await get(`/api/download/${paid.postId}`, cookie);
    } else {
      const free = owned.find((post) => !post.paid_content)!;
      const link = await get(`/api/download/freedownload/${free.postId}`, cookie);
      expect(link.status).toBe(200);
      const { downloadUrl } = (await link.json()) as { downloadUrl: string };
      file = await get(new URL(downloadUrl, base).pathname + new URL(downloadUrl, base).search, cookie);
    }
    expect(file.status, `download as ${account.email}`).toBe(200);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(0);
    if (file.headers.has("content-length")) expect(bytes.length).toBe(Number(file.headers.get("content-length")));
  }
  return failures;
}

export async function postCount(base: string): Promise<number> {
  const login = await signIn(base, DEMO_ADMIN);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const listing = (await (await fetch(`${base}/api/library/posts`, { headers: { Cookie: cookie } })).json()) as unknown[] | { posts: unknown[] };
  return (Array.isArray(listing) ? listing : listing.posts).length;
}
