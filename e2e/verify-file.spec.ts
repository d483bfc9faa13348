// A supporter downloads a paid ZIP (stamped with their leak-trace number on the way)
// and checks the downloaded file with "Verify a file" on the library card: the browser hashes it
// (nothing is uploaded) and calls it genuine; an older version and a changed file are told apart.
// The post and its versions are made here (the demo seed's files are not ZIPs).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { acceptAdultWarning, db, expect, loginAs, site, test } from "./fixtures";
import type { APIRequestContext, Page } from "@playwright/test";
import { LocalStorage } from "../app/integrations/storage.server";
import { createUserSession } from "../app/models/session.server";
import { contentHashFeed } from "../app/utils/content-hash";
import { traceNumberOf } from "../app/utils/zip-eocd";
import { writeZip } from "../tests/zip-files";

// Made when a worker runs this file (not when the runner only lists its tests), removed after.
let folder = "";
test.beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), "clib-e2e-verify-"));
});
/** The e2e server's storage folder (scripts/e2e-server.ts: DATA_DIR/files). */
const serverStorage = new LocalStorage(path.join(site.dataDir, "files"));
const postId = `e2everify${Date.now().toString(36)}`;
const title = "Verified Lighthouse Mod";

function contentHash(bytes: Buffer): string {
  const hash = createHash("sha256");
  const feed = contentHashFeed((part) => hash.update(part));
  feed.push(bytes);
  feed.finish();
  return hash.digest("hex");
}

function zipFile(name: string, text: string): Buffer {
  const file = path.join(folder, name);
  writeZip(
    file,
    [
      { name: "lighthouse/readme.txt", text },
      { name: "lighthouse/model.obj", text: `v 1 2 3 # ${text}\n`, repeat: 4000 },
    ],
    { deflate: true },
  );
  return readFileSync(file);
}

let older: Buffer;

test.beforeAll(async () => {
  older = zipFile("v1.zip", "first release");
  const current = zipFile("v2.zip", "second release");
  await db.post.create({
    data: {
      id: postId,
      title,
      paidContent: true,
      version: "V2.1",
      orderDate: new Date("2000-01-02T00:00:00Z"),
      tiers: { create: [{ tierId: "8825009", kind: "CURRENT" }] },
    },
  });
  const version = async (label: string, bytes: Buffer, createdAt: Date) => {
    const key = `posts/${postId}/lighthouse-${label.toLowerCase()}.zip`;
    await serverStorage.put(key, bytes);
    return db.postVersion.create({
      data: {
        postId,
        label,
        storageKey: key,
        fileName: `lighthouse-${label.toLowerCase()}.zip`,
        size: BigInt(bytes.length),
        sha256: createHash("sha256").update(bytes).digest("hex"),
        contentHash: contentHash(bytes),
        createdAt,
      },
    });
  };
  await version("V1.0", older, new Date("2024-01-01T00:00:00Z"));
  const latest = await version("V2.1", current, new Date("2024-06-01T00:00:00Z"));
  await db.post.update({
    where: { id: postId },
    data: { currentVersionId: latest.id, driveFileId: latest.storageKey, fileName: latest.fileName, fileSize: latest.size },
  });
});

test.afterAll(async () => {
  await db.post.deleteMany({ where: { id: postId } });
  await db.user.updateMany({ where: { email: "supporter@example.com" }, data: { tosAccepted: false } });
  await db.download.deleteMany({ where: { user: { email: "supporter@example.com" } } });
  rmSync(folder, { recursive: true, force: true });
});

test("a supporter's stamped download verifies as genuine; an older version and a changed file are told apart", async ({ page }) => {
  const supporter = await db.user.update({ where: { email: "supporter@example.com" }, data: { tosAccepted: true } });
  await loginAs(page, supporter.id);
  await acceptAdultWarning(page);
  const uploads: string[] = [];
  page.on("request", (request) => {
    if (request.method() !== "GET") uploads.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await page.goto(`/library?search=${encodeURIComponent("Verified Lighthouse")}`);
  const card = page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

  const downloadStarted = page.waitForEvent("download");
  await card.getByRole("button", { name: /^Download/ }).click();
  const download = await downloadStarted;
  // Saved under the post's title and version, whatever the upload was called.
  expect(download.suggestedFilename()).toBe("verified-lighthouse-mod-v2.1.zip");
  const saved = path.join(folder, "downloaded.zip");
  await download.saveAs(saved);
  const bytes = readFileSync(saved);
  // The copy carries the supporter's number in its comment.
  expect(traceNumberOf(bytes.subarray(-1000), bytes.length)).toBe(supporter.number);
  uploads.length = 0;

  // A quiet disclosure on the card: open it, then pick the file.
  await card.getByText("Verify a file", { exact: true }).click();
  const picker = card.getByLabel("Choose the file to check");
  const answer = card.getByTestId("verify-answer");
  await picker.setInputFiles(saved);
  await expect(answer).toHaveText("Genuine V2.1");

  const olderPath = path.join(folder, "lighthouse-v1.0.zip");
  writeFileSync(olderPath, older);
  await picker.setInputFiles(olderPath);
  await expect(answer).toHaveText("This is V1.0, an older version");

  const changed = Buffer.from(bytes);
  changed[200] = changed[200]! ^ 0x01;
  const changedPath = path.join(folder, "changed.zip");
  writeFileSync(changedPath, changed);
  await picker.setInputFiles(changedPath);
  await expect(answer).toHaveText("Does not match any version");
  // Nothing was uploaded: only GET requests (the versions list) while verifying.
  expect(uploads).toEqual([]);
});

/** The supporter's stamped copy, fetched with their session; saved to a file. */
async function supporterCopy(request: APIRequestContext, name: string) {
  const supporter = await db.user.update({ where: { email: "supporter@example.com" }, data: { tosAccepted: true } });
  const cookie = (await createUserSession(supporter.id)).split(";")[0]!;
  const response = await request.get(`/api/download/${postId}`, { headers: { Cookie: cookie } });
  expect(response.status()).toBe(200);
  const file = path.join(folder, name);
  writeFileSync(file, await response.body());
  return { supporter, file };
}

/** The admin drops the leaked copy on the code search and reads who it was served to. */
async function traceAsAdmin(page: Page, file: string, number: number) {
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
  await loginAs(page, admin.id);
  await page.goto("/admin");
  const search = page.getByRole("region", { name: "Code search" });
  await search.getByLabel("Leaked ZIP").setInputFiles(file);
  await search.getByRole("button", { name: "Find its downloader" }).click();
  await expect(search.getByTestId("trace-number")).toHaveText(`${path.basename(file)} carries leak-trace number ${number}.`);
  await expect(search.getByTestId("code-search-result")).toContainText(`Number ${number}:`);
  await expect(search.getByTestId("trace-verdict")).toHaveText("Signed stamp, verified: this site wrote this number's tag.");
  await expect(search.getByTestId("code-search-result")).toContainText(title);
}

test("the admin drops a leaked copy on the code search and gets its downloader", async ({ page, request }) => {
  const { supporter, file } = await supporterCopy(request, "leaked-with-js.zip");
  const posted: string[] = [];
  page.on("request", (sent) => {
    if (sent.method() === "POST") posted.push(`${new URL(sent.url()).pathname}${new URL(sent.url()).search}`);
  });
  await traceAsAdmin(page, file, supporter.number);
  // Through the page's fetcher (single fetch posts to the page's `.data` address): the page stayed where it was.
  expect(posted.some((address) => address.startsWith("/admin.data?intent=trace-zip"))).toBe(true);
  await expect(page).toHaveURL(/\/admin$/);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the leaked-ZIP lookup works as a plain multipart form", async ({ page, request }) => {
    const { supporter, file } = await supporterCopy(request, "leaked-no-js.zip");
    await traceAsAdmin(page, file, supporter.number);
    await expect(page).toHaveURL(/\/admin\?intent=trace-zip$/);
    // The other tools post without the lookup's intent in their address.
    await expect(page.getByRole("region", { name: "Code search" }).locator("form.admin-code-form")).toHaveAttribute("action", "/admin");
  });

  test("the card says verifying needs JavaScript", async ({ page }) => {
    const supporter = await db.user.findUniqueOrThrow({ where: { email: "supporter@example.com" } });
    await loginAs(page, supporter.id);
    await page.goto("/library");
    await page.getByRole("button", { name: "I am 18 or older" }).click();
    await expect(page.getByTestId("nsfw-modal")).toHaveCount(0);
    await page.goto(`/library?search=${encodeURIComponent("Verified Lighthouse")}`);
    const card = page.getByTestId("post-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
    await card.getByText("Verify a file", { exact: true }).click();
    await expect(card.getByText("Verifying a file needs JavaScript")).toBeVisible();
    await expect(card.getByLabel("Choose the file to check")).toHaveCount(0);
  });
});
