// Keep what you downloaded (docs/product.md#keep-what-you-downloaded) in the browser, with the
// creator's setting on. The suite's server runs with it off (the default), so this spec starts a
// second built server on the same database and files with KEEP_DOWNLOADED_VERSIONS=true. A member
// downloads V2.1 through their Tier 2 membership, the membership lapses and V2.3 comes out: the
// card says what they keep and what the newer version needs, and its Download fetches exactly
// V2.1, with JavaScript and without; each download is recorded once, through the membership.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { acceptAdultWarning, db, expect, loginAs, site, test } from "./fixtures";
import { LocalStorage } from "../app/integrations/storage.server";
import { appServerArgs, freePort } from "../scripts/app-server";

const TIER_2 = "8825009";
/** The worker's server's data folder (scripts/e2e-server.ts): this server serves the same files. */
const dataDir = site.dataDir;
const serverStorage = new LocalStorage(path.join(dataDir, "files"));
const tag = Date.now().toString(36);
const postId = `kept${tag}`;
const title = `Kept Streetwear ${tag}`;

let server: ChildProcess | undefined;
let base = "";
let memberId = "";
let v21 = Buffer.alloc(0);

async function startKeepingServer(): Promise<void> {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  let output = "";
  server = spawn(process.execPath, appServerArgs(), {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      APP_URL: base,
      CALLBACK_ORIGINS: base,
      DATA_DIR: dataDir,
      MAIL_TO_FILES: "true",
      DISABLE_JOBS: "1",
      WEB_CONCURRENCY: "1",
      PASSWORD_THREAD_PRIORITY: "low",
      KEEP_DOWNLOADED_VERSIONS: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the keeping server exited:\n${output}`);
    const ready = await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the keeping server did not start within 60 s:\n${output}`);
}

async function addVersion(label: string, bytes: Buffer, createdAt: Date) {
  const fileName = `streetwear-${label.toLowerCase()}.package`;
  const key = `posts/${postId}/${fileName}`;
  await serverStorage.put(key, bytes);
  return db.postVersion.create({
    data: { postId, label, storageKey: key, fileName, size: BigInt(bytes.length), sha256: createHash("sha256").update(bytes).digest("hex"), createdAt },
  });
}

async function makeCurrent(version: { id: string; label: string; storageKey: string; fileName: string; size: bigint }) {
  await db.post.update({
    where: { id: postId },
    data: { currentVersionId: version.id, version: version.label, driveFileId: version.storageKey, fileName: version.fileName, fileSize: version.size },
  });
}

test.beforeAll(async () => {
  v21 = Buffer.from(`streetwear V2.1 ${tag}\n`.repeat(200));
  await db.post.create({
    data: {
      id: postId,
      title,
      paidContent: true,
      orderDate: new Date("2000-01-03T00:00:00Z"),
      tiers: { create: [{ tierId: TIER_2, kind: "CURRENT" }] },
    },
  });
  await makeCurrent(await addVersion("V2.1", v21, new Date(Date.now() - 10 * 86_400_000)));
  const member = await db.user.create({
    data: { email: `kept-${tag}@example.com`, fullName: "Kept Member", mailVerified: true, emailVerifiedBy: "CODE", tosAccepted: true, currentTierId: TIER_2 },
  });
  memberId = member.id;
  await startKeepingServer();
});

test.afterAll(async () => {
  server?.kill("SIGTERM");
  await db.post.deleteMany({ where: { id: postId } });
  await db.user.deleteMany({ where: { id: memberId } });
});

function card(page: Page) {
  return page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

async function openCard(page: Page) {
  await loginAs(page, memberId);
  await acceptAdultWarning(page);
  // The 18+ answer as the no-JavaScript page reads it (cookies are per host, not per port).
  await page.context().addCookies([{ name: "nsfwAccepted", value: encodeURIComponent(Buffer.from(JSON.stringify(true)).toString("base64")), url: base }]);
  await page.goto(`${base}/library?search=${encodeURIComponent(title)}`);
  await expect(card(page)).toBeVisible();
}

/** Clicks the button and answers the downloaded file's bytes. */
async function downloadBy(page: Page, name: RegExp | string): Promise<Buffer> {
  const started = page.waitForEvent("download");
  await card(page).getByRole("button", { name }).click();
  const download = await started;
  return readFileSync(await download.path());
}

/** Moves the member's download records into the past: a repeat within minutes counts as the same download. */
async function backdateDownloads(days: number) {
  await db.download.updateMany({ where: { userId: memberId, postId }, data: { createdAt: new Date(Date.now() - days * 86_400_000) } });
}

async function recorded(): Promise<string[][]> {
  const rows = await db.download.findMany({ where: { userId: memberId, postId }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => [row.version, row.accessSource]);
}

test.describe.configure({ mode: "serial" });

test("a member downloads V2.1 through their membership", async ({ page }) => {
  await openCard(page);
  expect((await downloadBy(page, /^Download/)).equals(v21)).toBe(true);
  await expect.poll(recorded).toEqual([["V2.1", "TIER"]]);
});

test("after the membership lapses and V2.3 is out, the card offers V2.1 and the privacy page states the rule", async ({ page }) => {
  await makeCurrent(await addVersion("V2.3", Buffer.from(`streetwear V2.3 ${tag}\n`.repeat(300)), new Date()));
  await db.user.update({ where: { id: memberId }, data: { currentTierId: null } });
  await backdateDownloads(9);
  await openCard(page);
  const kept = card(page).getByTestId("kept-version");
  await expect(kept).toContainText(/You keep V2\.1, downloaded on \d+ \w+ \d{4} through a membership; V2\.3 needs Tier 2/);
  // Only the kept version is offered: the current one stays locked.
  await expect(card(page).getByRole("button", { name: /^Download/ })).toHaveText(["Download V2.1"]);
  expect((await downloadBy(page, "Download V2.1")).equals(v21)).toBe(true);
  await expect.poll(recorded).toEqual([
    ["V2.1", "TIER"],
    ["V2.1", "TIER"],
  ]);
  await page.goto(`${base}/infos`);
  const privacy = page.locator("details#privacy");
  await privacy.locator("summary").click();
  await expect(privacy.getByText("If your membership ends, you keep the exact versions you downloaded through it")).toBeVisible();
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the kept version's Download is a plain form that fetches V2.1", async ({ page }) => {
    await backdateDownloads(8);
    await openCard(page);
    await expect(card(page).getByTestId("kept-version")).toContainText("You keep V2.1");
    expect((await downloadBy(page, "Download V2.1")).equals(v21)).toBe(true);
    await expect.poll(recorded).toHaveLength(3);
    expect(new Set((await recorded()).map((row) => row.join(" ")))).toEqual(new Set(["V2.1 TIER"]));
  });
});
