// The feed and the one-click unsubscribe through the built production server (run `npm run
// build` first): the addresses route as documented, and a mail provider's cross-site POST
// without any cookie unsubscribes.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { db } from "~/db.server";
import { regenerateFeedToken, saveUpdatePreferences } from "~/models/update-notifications.server";
import { appServerArgs, freePort } from "../scripts/app-server";
import { createTestUser } from "./helpers";

const root = path.resolve(import.meta.dirname, "..");
let server: ChildProcess;
let base: string;
let output = "";

beforeAll(async () => {
  const args = appServerArgs();
  for (const file of args.filter((arg) => !arg.startsWith("--"))) if (!existsSync(file)) throw new Error(`No build at ${file}: run \`npm run build\` first.`);
  base = `http://127.0.0.1:${await freePort()}`;
  server = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: new URL(base).port,
      HOST: "127.0.0.1",
      APP_URL: base,
      DISABLE_JOBS: "1",
      REQUEST_LOG: "false",
      WEB_CONCURRENCY: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${output}`);
    if (
      await fetch(`${base}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(output);
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await exited;
});

describe("update feed and unsubscribe on the built server", () => {
  it("serves /feeds/{token}.atom as Atom, 404 for an unknown token", async () => {
    const user = await createTestUser();
    const { url } = await regenerateFeedToken(user.id);
    const feed = await fetch(url.replace("http://localhost:3999", base));
    expect(feed.status).toBe(200);
    expect(feed.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    expect(await feed.text()).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect((await fetch(`${base}/feeds/${"Z".repeat(43)}.atom`)).status).toBe(404);
  });

  it("unsubscribes on a mail provider's cross-site one-click POST, and shows the page on GET", async () => {
    const user = await createTestUser();
    await saveUpdatePreferences(user.id, { newVersions: "on", newPosts: "on" });
    const { unsubscribeToken } = await db.updateSubscription.findUniqueOrThrow({ where: { userId: user.id } });
    const page = await fetch(`${base}/unsubscribe/${unsubscribeToken}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Unsubscribe</button>");
    expect((await db.updateSubscription.findUniqueOrThrow({ where: { userId: user.id } })).notifyNewPosts).toBe(true);

    const response = await fetch(`${base}/unsubscribe/${unsubscribeToken}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://mail.example", "Sec-Fetch-Site": "cross-site" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("You will get no more update mails.");
    const row = await db.updateSubscription.findUniqueOrThrow({ where: { userId: user.id } });
    expect(row).toMatchObject({ notifyNewVersions: false, notifyNewPosts: false });
    expect(row.unsubscribedAt).toBeInstanceOf(Date);

    // Only the unsubscribe route takes such a post: the same request elsewhere is refused.
    for (const pathname of ["/account/notifications", `/unsubscribe/${unsubscribeToken}/x`]) {
      const refused = await fetch(`${base}${pathname}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://mail.example", "Sec-Fetch-Site": "cross-site" },
        body: "List-Unsubscribe=One-Click",
      });
      expect(refused.status, pathname).toBe(403);
    }
  });
});
