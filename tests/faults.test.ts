// Faults of outside services and crashes mid-write: the mail server down (mail waits in the
// outbox and arrives once it is back), object storage down, and a CSV import that dies half way.
// Each answers a clear error, or as usual, and leaves nothing half-written.
// (A Patreon interval run failing mid-page is covered in sync-interval.test.ts: earlier pages
// stay, the failing page is rolled back whole.)
import http from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { verifyEmail } from "~/models/email-verification.server";
import { deliverDueMail } from "~/models/mail-outbox.server";
import { S3Storage } from "~/integrations/s3-storage.server";
import { LocalStorage, setStorageForTests, STORAGE_UNAVAILABLE_MESSAGE } from "~/integrations/storage.server";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as registerRoute from "~/routes/api.auth.register";
import * as forgotRoute from "~/routes/api.auth.forgot-password";
import * as resendRoute from "~/routes/api.auth.resend-verification";
import * as loginPage from "~/routes/login";
import * as paidRoute from "~/routes/api.download.$postId";
import * as freeRoute from "~/routes/api.download.freedownload.$postId";
import * as signedRoute from "~/routes/download.$postId";
import * as importRoute from "~/routes/api.admin.import-purchases";
import * as uploadRoute from "~/routes/api.upload.file.$id";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import { startMailCapture } from "./mail-capture";
import { setEnv } from "./env";
import { startS3rver } from "./storage-s3rver";

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = http.createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const STACK_TRACE = /\bat .+\.(js|ts):\d+/;

// Every test here provokes a failure that the app logs on purpose.
globalThis.__allowConsoleError = true;

afterEach(() => {
  setEnv("SMTP_URL", undefined);
});

describe("the mail server is down", () => {
  beforeEach(async () => {
    setEnv("SMTP_URL", `smtp://127.0.0.1:${await closedPort()}`);
  });

  it("sign-up answers as usual, its code mail waits in the outbox, and arrives (and verifies the account) once the server is back", async () => {
    const email = "down-signup@example.com";
    const response = await callRoute(registerRoute, { method: "POST", path: "/api/auth/register", json: { email, password: "Secret1234!" } });
    expect(response.status).toBe(201);
    expect(await readJsonBody(response)).toMatchObject({ message: "Account created and logged in successfully." });
    expect(response.headers.get("Set-Cookie")).toContain("__session");
    expect(await db.user.count({ where: { email, mailVerified: false } })).toBe(1);
    expect(await db.verification.count({ where: { target: email, purpose: "EMAIL_VERIFY" } })).toBe(1);
    const queued = await db.outboxMail.findFirstOrThrow({ where: { to: email } });
    expect(queued).toMatchObject({ status: "PENDING", kind: "code", attempts: 1, subject: "Your verification code" });
    expect(queued.lastError).toMatch(/ECONNREFUSED/);

    // The no-JavaScript form signs up the same way.
    const formEmail = "down-signup-form@example.com";
    const form = new FormData();
    form.set("intent", "signup");
    form.set("email", formEmail);
    form.set("password", "Secret1234!");
    form.set("confirmPassword", "Secret1234!");
    const page = await callRoute(loginPage, { method: "POST", path: "/login?tab=signup", form });
    expect(page.status).toBeLessThan(400);
    expect(await db.user.count({ where: { email: formEmail } })).toBe(1);
    expect(await db.outboxMail.count({ where: { to: formEmail, status: "PENDING" } })).toBe(1);

    // Mail back: the sender job's next pass delivers both codes, and the code verifies the account.
    const capture = await startMailCapture();
    try {
      setEnv("SMTP_URL", capture.url);
      expect(await deliverDueMail({ now: new Date(Date.now() + 60_000) })).toMatchObject({ sent: 2 });
      const code = await capture.nextCodeFor(email);
      await capture.nextCodeFor(formEmail);
      await verifyEmail({ email, code });
      expect(await db.user.findUniqueOrThrow({ where: { email } })).toMatchObject({ mailVerified: true });
    } finally {
      await capture.stop();
    }
  });

  it("a password reset request and a verification resend answer as usual, and their codes arrive once the server is back", async () => {
    const user = await createTestUser({ email: "down-reset@example.com", password: "Secret1234!" });
    const reset = await callRoute(forgotRoute, { method: "POST", path: "/api/auth/forgot-password", json: { email: user.email } });
    expect(reset.status).toBe(200);
    expect(await readJsonBody(reset)).toMatchObject({ message: "If an account exists with that email, a reset code has been sent." });
    expect(await db.verification.count({ where: { target: user.email!, purpose: "PASSWORD_RESET" } })).toBe(1);

    const unverified = await createTestUser({ email: "down-resend@example.com", password: "Secret1234!", mailVerified: false });
    const resend = await callRoute(resendRoute, {
      method: "POST",
      path: "/api/auth/resend-verification",
      json: { email: unverified.email },
      cookie: await sessionCookie(unverified.id),
    });
    expect(resend.status).toBe(200);
    expect(JSON.stringify(await readJsonBody(resend))).not.toMatch(STACK_TRACE);
    expect(await db.outboxMail.count({ where: { to: { in: [user.email!, unverified.email!] }, status: "PENDING" } })).toBe(2);
    // The account itself is untouched.
    expect(await db.user.findUniqueOrThrow({ where: { id: unverified.id } })).toMatchObject({ mailVerified: false, passwordHash: unverified.passwordHash });

    const capture = await startMailCapture();
    try {
      setEnv("SMTP_URL", capture.url);
      await deliverDueMail({ now: new Date(Date.now() + 60_000) });
      expect((await capture.nextMailTo(user.email!)).subject).toBe("Your password reset code");
      expect((await capture.nextMailTo(unverified.email!)).subject).toBe("Your verification code");
    } finally {
      await capture.stop();
    }
  });
});

describe("object storage is down", () => {
  const localRoot = mkdtempSync(path.join(os.tmpdir(), "clib-fault-files-"));
  afterAll(() => {
    setStorageForTests(undefined);
    rmSync(localRoot, { recursive: true, force: true });
  });

  it("downloads answer a JSON 5xx error without a stack trace, quickly, and record nothing", async () => {
    await createTiers();
    setStorageForTests(new LocalStorage(localRoot));
    const free = await createPost({ paid: false, fileSize: 10_000 });
    const paid = await createPost({ tiers: [TIER_2] });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const cookie = await sessionCookie(user.id);

    // The same files now live on an S3 endpoint that refuses every connection.
    setStorageForTests(
      await S3Storage.create({
        endpoint: `http://127.0.0.1:${await closedPort()}`,
        region: "us-east-1",
        bucket: "files",
        accessKeyId: "x",
        secretAccessKey: "y",
        forcePathStyle: true,
      }),
    );
    const direct = await callRoute(paidRoute, { params: { postId: paid.id }, cookie });
    const link = await readJsonBody<{ downloadUrl: string }>(await callRoute(freeRoute, { params: { postId: free.id }, cookie }));
    const url = new URL(link.downloadUrl);
    const signed = await callRoute(signedRoute, { path: `${url.pathname}${url.search}`, params: { postId: free.id } });
    for (const response of [direct, signed]) {
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(response.headers.get("Content-Type")).toContain("application/json");
      const body = await response.text();
      expect(JSON.parse(body)).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE });
      expect(body).not.toMatch(STACK_TRACE);
    }
    expect(await db.download.count({ where: { userId: user.id } })).toBe(0);
  });

  it("with the S3 server stopped, an upload answers 503 with Retry-After and leaves nothing, and a download answers 503 too", async () => {
    const s3 = await startS3rver();
    try {
      setStorageForTests(s3.storage);
      const post = await createPost({ paid: false, fileSize: 10_000 });
      const before = await db.post.findUniqueOrThrow({ where: { id: post.id } });
      const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
      const cookie = await sessionCookie(admin.id);
      await s3.stopServer();

      const upload = await callRoute(uploadRoute, { method: "POST", params: { id: post.id }, form: uploadForm(200_000), cookie });
      expect(upload.status).toBe(503);
      expect(Number(upload.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(await readJsonBody(upload)).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE });
      // Nothing partial: no version, the post as it was, and no object but the one it had.
      expect(await db.postVersion.count({ where: { postId: post.id } })).toBe(0);
      expect(await db.post.findUniqueOrThrow({ where: { id: post.id } })).toMatchObject({ driveFileId: before.driveFileId, fileSize: before.fileSize });
      const objects = readdirSync(s3.directory, { recursive: true, encoding: "utf8" }).filter(
        (name) => name.includes(`posts/${post.id}/`) && name.endsWith("._S3rver_object"),
      );
      expect(objects).toEqual([`library-test/${before.driveFileId}._S3rver_object`]);

      const download = await callRoute(paidRoute, { params: { postId: post.id }, cookie });
      expect(download.status).toBe(503);
      expect(Number(download.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(await readJsonBody(download)).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE });
    } finally {
      setStorageForTests(undefined);
      await s3.stop();
    }
  });
});

/**
 * An S3 endpoint that takes connections and then falls silent: `silent` says nothing at all (a
 * frozen host, a dropped network); `stalling` holds an object of `size` bytes of any name, answers
 * HEAD and byte ranges whole, and a whole-object GET with its headers and first KiB only.
 */
async function unansweringS3(kind: "silent" | "stalling", size: number) {
  const held = new Set<import("node:net").Socket>();
  const server = http.createServer((request, response) => {
    if (kind === "silent") return;
    const headers = { "Content-Length": String(size), ETag: '"stalling"', "Last-Modified": new Date(0).toUTCString() };
    if (request.method === "HEAD") return void response.writeHead(200, headers).end();
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? "");
    if (range) {
      const [first, last] = [Number(range[1]), Math.min(Number(range[2]), size - 1)];
      response.writeHead(206, { ...headers, "Content-Length": String(last - first + 1), "Content-Range": `bytes ${first}-${last}/${size}` });
      return void response.end(Buffer.alloc(last - first + 1, 1));
    }
    response.writeHead(200, { ...headers, "Content-Type": "application/octet-stream" });
    response.write(Buffer.alloc(1024, 1));
  });
  server.on("connection", (socket) => {
    held.add(socket);
    socket.once("close", () => held.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const storage = await S3Storage.create({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: "us-east-1",
    bucket: "files",
    accessKeyId: "x",
    secretAccessKey: "y",
    forcePathStyle: true,
    timeoutMs: 300,
  });
  return {
    storage,
    close: async () => {
      storage.destroy();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("object storage stops answering", () => {
  afterEach(() => setStorageForTests(undefined));

  it("a download answers 503 with Retry-After instead of waiting for an endpoint that says nothing", async () => {
    await createTiers();
    const post = await createPost({ tiers: [TIER_2] });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const silent = await unansweringS3("silent", 0);
    try {
      setStorageForTests(silent.storage);
      const download = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) });
      expect(download.status).toBe(503);
      expect(Number(download.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(await readJsonBody(download)).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE });
      expect(await db.download.count({ where: { userId: user.id } })).toBe(0);
    } finally {
      await silent.close();
    }
  });

  it("a transfer whose endpoint falls silent mid-file is cut, not held open, and is not counted as downloaded", async () => {
    await createTiers();
    const post = await createPost({ tiers: [TIER_2], fileSize: 64 * 1024 });
    const user = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const stalling = await unansweringS3("stalling", 64 * 1024);
    try {
      setStorageForTests(stalling.storage);
      const download = await callRoute(paidRoute, { params: { postId: post.id }, cookie: await sessionCookie(user.id) });
      expect(download.status).toBe(200);
      expect(download.headers.get("Content-Length")).toBe(String(64 * 1024));
      const received = await download.arrayBuffer().then(
        (body) => `the whole body (${body.byteLength} bytes)`,
        () => "cut",
      );
      expect(received).toBe("cut");
      expect(await db.download.count({ where: { userId: user.id } })).toBe(0);
    } finally {
      await stalling.close();
    }
  });
});

/** A multipart form with a post file of `size` bytes. */
function uploadForm(size: number): FormData {
  const form = new FormData();
  form.append("file", new Blob([Buffer.alloc(size, 7)], { type: "application/octet-stream" }), "mod.package");
  return form;
}

describe("local storage is full or not writable", () => {
  const isRoot = process.getuid?.() === 0;
  let root = "";
  let mounted = false;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), "clib-full-disk-"));
    // A disk of 64 KiB (root may mount one); otherwise a folder this user may not write.
    mounted = isRoot && spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", root]).status === 0;
    if (!mounted) {
      mkdirSync(path.join(root, "posts"));
      chmodSync(root, 0o555);
      chmodSync(path.join(root, "posts"), 0o555);
    }
    setStorageForTests(new LocalStorage(root));
  });
  afterEach(() => {
    setStorageForTests(undefined);
    if (mounted) spawnSync("umount", [root]);
    else chmodSync(root, 0o755);
    rmSync(root, { recursive: true, force: true });
  });

  it("an upload answers 503 with Retry-After, not 400, leaves no partial file, and a broken upload is still 400", async () => {
    expect(mounted || !isRoot, "root could not mount a small disk for the test").toBe(true);
    const post = await createPost({ paid: false, fileSize: null });
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const cookie = await sessionCookie(admin.id);

    const upload = await callRoute(uploadRoute, { method: "POST", params: { id: post.id }, form: uploadForm(1024 * 1024), cookie });
    expect(upload.status).toBe(503);
    expect(Number(upload.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await readJsonBody(upload)).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE });
    expect(await db.postVersion.count({ where: { postId: post.id } })).toBe(0);
    expect(readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => !["posts", `posts/${post.id}`].includes(name))).toEqual([]);

    // The admin's own broken body stays the admin's error.
    const broken = await callRoute(uploadRoute, {
      method: "POST",
      params: { id: post.id },
      headers: { "Content-Type": "multipart/form-data; boundary=expected-boundary" },
      body: '--expected-boundary\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\nno closing boundary',
      cookie,
    });
    expect(broken.status).toBe(400);
    expect(await readJsonBody(broken)).toEqual({ error: "The upload could not be read." });
  });
});

describe("a crash in the middle of a CSV import", () => {
  const HEADER = "DateTime (UTC),From,Message,Item,Received,Given,Currency,TransactionType,TransactionId,Reference,SalesTax,BuyerEmail";

  it("leaves no purchase and no audit entry when the database fails after the rows are written", async () => {
    await createPost({ paid: true, kofiId: "crash1", fileSize: null });
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const rows = Array.from(
      { length: 50 },
      (_, index) => `03/15/2025 14:05,Ann,,https://ko-fi.com/s/crash1,1,1,USD,Shop Order,TX-CRASH-${index},,0,buyer${index}@example.com`,
    );
    const before = { purchases: await db.purchase.count(), audits: await db.auditEntry.count() };
    // The audit insert comes after the purchases, inside the import's transaction: failing it is
    // a crash at the last step.
    await db.$executeRawUnsafe(`CREATE FUNCTION fail_import() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'simulated crash'; END $$ LANGUAGE plpgsql`);
    await db.$executeRawUnsafe(`CREATE TRIGGER fail_import BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION fail_import()`);
    try {
      const form = new FormData();
      form.append("file", new Blob([`${HEADER}\n${rows.join("\n")}\n`], { type: "text/csv" }), "crash.csv");
      const response = await callRoute(importRoute, { method: "POST", path: "/api/admin/import-purchases", form, cookie: await sessionCookie(admin.id) });
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(JSON.stringify(await readJsonBody(response))).not.toMatch(STACK_TRACE);
      expect(await db.purchase.count()).toBe(before.purchases);
      expect(await db.auditEntry.count()).toBe(before.audits);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER fail_import ON audit_log`);
      await db.$executeRawUnsafe(`DROP FUNCTION fail_import()`);
    }

    // The same file imports whole once the fault is gone.
    const form = new FormData();
    form.append("file", new Blob([`${HEADER}\n${rows.join("\n")}\n`], { type: "text/csv" }), "crash.csv");
    const again = await callRoute(importRoute, { method: "POST", path: "/api/admin/import-purchases", form, cookie: await sessionCookie(admin.id) });
    expect(again.status).toBe(200);
    expect(await db.purchase.count()).toBe(before.purchases + 50);
  });
});
