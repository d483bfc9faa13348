// The library manifest (docs/api.md#library-manifest): with a personal token or a session, one
// entry per post the account may download now, and exactly those: for random accounts the set
// is what the download endpoint serves. Its signed addresses work without cookies, serve the
// described bytes, are recorded as downloads and expire; an unchanged manifest is a 304 that
// costs one query.
import { vi } from "vitest";

vi.hoisted(() => {
  // Kept versions are part of what an account may download: exercised here.
  process.env.KEEP_DOWNLOADED_VERSIONS = "true";
});

import { createHash } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { LIBRARY_FILE_TTL_MS, recordDownload, signedLibraryFileUrl, verifyLibraryFile } from "~/models/download.server";
import type { LibraryManifest } from "~/models/library-manifest.server";
import { hashToken } from "~/models/session.server";
import * as paidRoute from "~/routes/api.download.$postId";
import * as filesRoute from "~/routes/api.library.files.$postId";
import * as manifestRoute from "~/routes/api.library.manifest";
import { audienceTierIds } from "~/utils/release-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { appDatabaseSettled, callRoute, createTestUser, queriesDuring, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let tokenCounter = 0;
/** A personal token of the user (only its hash stored, as the token API stores it). */
async function tokenOf(userId: string): Promise<string> {
  tokenCounter += 1;
  const token = `manifest-token-${tokenCounter}-${Date.now()}`;
  await db.apiToken.create({ data: { userId, tokenHash: hashToken(token), label: "manifest test" } });
  return token;
}

function getManifest(credentials: { token?: string; cookie?: string }, headers: Record<string, string> = {}) {
  return callRoute(manifestRoute, {
    path: "/api/library/manifest",
    cookie: credentials.cookie,
    headers: { ...headers, ...(credentials.token ? { Authorization: `Bearer ${credentials.token}` } : {}) },
  });
}

async function manifestOf(credentials: { token?: string; cookie?: string }): Promise<LibraryManifest> {
  const response = await getManifest(credentials);
  expect(response.status).toBe(200);
  return readJsonBody<LibraryManifest>(response);
}

/** Follows a manifest address the way a tool would: no cookie, no token. */
function follow(url: string, headers: Record<string, string> = {}) {
  const address = new URL(url);
  const postId = decodeURIComponent(address.pathname.split("/").pop()!);
  return callRoute(filesRoute, { path: `${address.pathname}${address.search}`, params: { postId }, headers });
}

/** Gives a post a current version row with the hashes of its stored bytes (as an upload records them). */
async function withVersion(post: Awaited<ReturnType<typeof createPost>>, label = post.version) {
  const version = await db.postVersion.create({
    data: {
      postId: post.id,
      label,
      storageKey: post.driveFileId!,
      fileName: post.fileName!,
      size: post.fileSize!,
      sha256: sha256(post.bytes),
      contentHash: sha256(post.bytes),
    },
  });
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: version.id, version: label } });
  return version;
}

beforeAll(async () => {
  await createTiers();
});

describe("GET /api/library/manifest", () => {
  let member: User;
  let owned: Awaited<ReturnType<typeof createPost>>;
  let locked: Awaited<ReturnType<typeof createPost>>;
  let versionId: string;

  beforeAll(async () => {
    member = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    owned = await createPost({ tiers: [TIER_2], title: "Manifest Cabin", version: "V2.0" });
    versionId = (await withVersion(owned)).id;
    locked = await createPost({ tiers: [TIER_3], title: "Manifest Castle" });
  });

  it("answers the same entries with a personal token and with a session, in the documented shape", async () => {
    const byToken = await manifestOf({ token: await tokenOf(member.id) });
    const bySession = await manifestOf({ cookie: await sessionCookie(member.id) });
    expect(Date.parse(byToken.generated_at)).not.toBeNaN();
    const entry = byToken.posts.find((post) => post.postId === owned.id);
    expect(entry).toEqual({
      postId: owned.id,
      title: "Manifest Cabin",
      version: "V2.0",
      files: [
        {
          name: "manifest-cabin-v2.0.package",
          role: "main",
          file_id: null,
          label: "",
          size: owned.bytes.length,
          sha256: sha256(owned.bytes),
          content_hash: sha256(owned.bytes),
          unlocked: true,
          url: expect.stringMatching(new RegExp(`/api/library/files/${owned.id}\\?`)),
        },
      ],
      requires: [],
      compatibility: [],
    });
    expect(byToken.posts.some((post) => post.postId === locked.id)).toBe(false);
    expect(bySession.posts.map((post) => post.postId)).toEqual(byToken.posts.map((post) => post.postId));
    // Made within one expiry step, the two are the same text but for the instant.
    expect({ ...bySession, generated_at: "" }).toEqual({ ...byToken, generated_at: "" });
  });

  it("refuses a guest and an ended token", async () => {
    expect((await getManifest({})).status).toBe(401);
    const token = await tokenOf(member.id);
    await db.apiToken.deleteMany({ where: { tokenHash: hashToken(token) } });
    const ended = await getManifest({ token });
    expect(ended.status).toBe(401);
    expect(await readJsonBody(ended)).toEqual({ error: "Not authenticated" });
  });

  it("a file address works without cookies, serves the bytes the manifest describes and is recorded as a download", async () => {
    await db.download.deleteMany({ where: { userId: member.id, postId: owned.id } });
    const manifest = await manifestOf({ token: await tokenOf(member.id) });
    const file = manifest.posts.find((post) => post.postId === owned.id)!.files[0]!;
    const response = await follow(file.url!);
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.length).toBe(file.size);
    expect(sha256(bytes)).toBe(file.sha256);
    await appDatabaseSettled();
    const records = await db.download.findMany({ where: { userId: member.id, postId: owned.id } });
    expect(records).toEqual([expect.objectContaining({ version: "V2.0", versionId, accessSource: "TIER" })]);
  });

  it("a file address lasts about an hour, cannot be altered, and follows the account's access when used", async () => {
    const manifest = await manifestOf({ cookie: await sessionCookie(member.id) });
    const url = new URL(manifest.posts.find((post) => post.postId === owned.id)!.files[0]!.url!);
    const expires = Number(url.searchParams.get("expires"));
    expect(expires - Date.now()).toBeGreaterThanOrEqual(LIBRARY_FILE_TTL_MS - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(LIBRARY_FILE_TTL_MS + 11 * 60_000);
    expect(verifyLibraryFile(owned.id, url.searchParams, Date.now())).toEqual({ userId: member.id, versionId, fileId: null });
    expect(verifyLibraryFile(owned.id, url.searchParams, expires + 1)).toBeNull();

    // An address that expired a second ago is refused, in words that say what to do.
    const expired = await follow(signedLibraryFileUrl(owned.id, member.id, versionId, Date.now() - 1000));
    expect(expired.status).toBe(403);
    expect(await readJsonBody(expired)).toEqual({ error: LIBRARY_MESSAGES.manifestLinkExpired });
    // Another post, or another account, under the same signature: refused.
    const otherPost = new URL(url);
    otherPost.pathname = `/api/library/files/${locked.id}`;
    expect((await follow(otherPost.toString())).status).toBe(403);
    const someoneElse = new URL(url);
    someoneElse.searchParams.set("u", (await createTestUser()).id);
    expect((await follow(someoneElse.toString())).status).toBe(403);

    // The membership ends: the address handed out before is refused like any download.
    const lapsing = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const itsUrl = (await manifestOf({ cookie: await sessionCookie(lapsing.id) })).posts.find((post) => post.postId === owned.id)!.files[0]!.url!;
    await db.user.update({ where: { id: lapsing.id }, data: { currentTierId: null } });
    const refused = await follow(itsUrl);
    expect(refused.status).toBe(403);
    expect(await readJsonBody(refused)).toEqual({ error: LIBRARY_MESSAGES.locked });
  });

  it("answers 304 to If-None-Match with one query, and a new ETag once the account's access changes", async () => {
    const viewer = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
    const token = await tokenOf(viewer.id);
    const first = await getManifest({ token });
    expect(first.status).toBe(200);
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"m-[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("Cache-Control")).toBe("private, no-cache");
    const before = await readJsonBody<LibraryManifest>(first);
    expect(before.posts.some((post) => post.postId === owned.id)).toBe(false);

    const { result: unchanged, queries } = await queriesDuring("", () => getManifest({ token }, { "If-None-Match": etag }));
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("ETag")).toBe(etag);
    expect(await unchanged.text()).toBe("");
    expect(queries).toHaveLength(1);
    // Several tags, weak or not, as clients send them.
    expect((await getManifest({ token }, { "If-None-Match": `"other", W/${etag}` })).status).toBe(304);

    // A grant changes what the account may download: a new ETag and the post in the manifest.
    await db.unlockedContent.create({ data: { userId: viewer.id, postId: owned.id, source: "ADMIN" } });
    const changed = await getManifest({ token }, { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("ETag")).not.toBe(etag);
    expect((await readJsonBody<LibraryManifest>(changed)).posts.some((post) => post.postId === owned.id)).toBe(true);
  });
});

describe("a lapsed member's kept version", () => {
  it("is listed with the version kept, and its address serves that version", async () => {
    const lapsed = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    const post = await createPost({ tiers: [TIER_2], title: "Manifest Kept", version: "V2.0" });
    const older = await db.postVersion.create({
      data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize!, sha256: sha256(post.bytes) },
    });
    await withVersion(post, "V2.0");
    await recordDownload(lapsed.id, post.id, "V1.0", new Date(Date.now() - 86_400_000), "current-tier", older.id);
    await db.user.update({ where: { id: lapsed.id }, data: { currentTierId: null } });
    const entry = (await manifestOf({ token: await tokenOf(lapsed.id) })).posts.find((item) => item.postId === post.id);
    expect(entry).toMatchObject({ version: "V1.0", files: [{ sha256: sha256(post.bytes) }] });
    const served = await follow(entry!.files[0]!.url!);
    expect(served.status).toBe(200);
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(sha256(post.bytes));
  });
});

// ---------------------------------------------------------------- the property

const KNOWN = [TIER_1, TIER_2, TIER_3];
const TIERS = [...KNOWN, "999"];
const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000);

/** true one time in five, or (mostly) four times in five: the interesting paths need most accounts active. */
const rarely = fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 });
const mostly = rarely.map((value) => !value);
/** The value one time in four, else null: an account holds a few things, not everything. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary, weight: 1 });

const postShape = fc.record({
  paid: mostly,
  enabled: mostly,
  kofiOnly: rarely,
  hasFile: mostly,
  tiers: fc.uniqueArray(fc.constantFrom(...KNOWN), { maxLength: 2 }),
  firstTiers: fc.uniqueArray(fc.constantFrom(...KNOWN), { maxLength: 2 }),
  publishedDay: fc.integer({ min: 10, max: 40 }),
  scheduledInDays: sometimes(fc.integer({ min: -3, max: 3 })),
  // Release cascade: steps to a tier (and those above it) or to everyone, opened or ahead.
  steps: fc.array(fc.record({ tier: fc.option(fc.constantFrom(...KNOWN), { nil: null }), inDays: fc.integer({ min: -10, max: 10 }) }), { maxLength: 3 }),
  // What this account holds for the post.
  granted: sometimes(fc.constantFrom("ADMIN" as const, "SYNC" as const)),
  bought: sometimes(fc.boolean()),
  voted: sometimes(fc.boolean()),
  // A version downloaded through a membership earlier: the current one, an older one, or none.
  keptDownload: fc.constantFrom("none" as const, "current" as const, "older" as const),
});

const accountShape = fc.record({
  isAdmin: rarely,
  restricted: rarely,
  tosAccepted: mostly,
  currentTier: fc.option(fc.constantFrom(...TIERS), { nil: null }),
  pledges: fc.array(
    fc.record({
      type: fc.constantFrom("pledge_start", "pledge_upgrade", "pledge_delete"),
      day: fc.integer({ min: 0, max: 50 }),
      tier: fc.option(fc.constantFrom(...TIERS), { nil: null }),
      status: fc.option(fc.constantFrom("Paid", "Declined", "Pending"), { nil: null }),
    }),
    { maxLength: 3 },
  ),
  byToken: fc.boolean(),
  posts: fc.array(postShape, { minLength: 1, maxLength: 4 }),
});

type Account = typeof accountShape extends fc.Arbitrary<infer T> ? T : never;
let run = 0;

/** Stores the account and its posts; answers them with each post's kept version ids, newest last. */
async function arrange(account: Account) {
  run += 1;
  const user = await createTestUser({
    isAdmin: account.isAdmin,
    restricted: account.restricted,
    tosAccepted: account.tosAccepted,
    currentTierId: account.currentTier,
  });
  for (const [index, pledge] of account.pledges.entries()) {
    await db.pledgeEvent.create({
      data: {
        id: `mf${run}:${index}`,
        userId: user.id,
        type: pledge.type,
        amountCents: 500,
        date: day(pledge.day),
        tierId: pledge.tier,
        paymentStatus: pledge.status,
      },
    });
  }
  const prices = (await db.tier.findMany()).map((tier) => ({ id: tier.id, isPaid: tier.isPaid, amountCents: tier.amountCents }));
  const now = Date.now();
  const posts: { id: string; versionIds: string[] }[] = [];
  for (const [index, p] of account.posts.entries()) {
    const code = `MF${run}-${index}`;
    const post = await createPost({
      paid: p.paid,
      enabled: p.enabled,
      kofiOnly: p.kofiOnly,
      kofiId: code,
      fileSize: p.hasFile ? 64 : null,
      tiers: p.tiers,
      firstTiers: p.firstTiers,
      firstPublishedAt: day(p.publishedDay),
      version: "V2.0",
    });
    if (p.scheduledInDays !== null) await db.post.update({ where: { id: post.id }, data: { publishAt: new Date(now + p.scheduledInDays * 86_400_000) } });
    for (const [position, step] of p.steps.entries()) {
      const opensAt = new Date(now + step.inDays * 86_400_000);
      await db.releaseStep.create({
        data: { postId: post.id, position, audienceTierId: step.tier, tierIds: step.tier ? audienceTierIds(step.tier, prices) : [], opensOn: opensAt, opensAt },
      });
    }
    if (p.granted) await db.unlockedContent.create({ data: { userId: user.id, postId: post.id, source: p.granted } });
    if (p.bought !== null) {
      const email = `mf${run}-${index}@shop.example`;
      await db.shopEmail.create({ data: { userId: user.id, email, verifiedEmail: p.bought ? email : null, verifiedAt: p.bought ? new Date() : null } });
      await db.purchase.create({ data: { email, kofiItemCode: code, transactionId: `mf${run}-${index}`, source: "ADMIN", purchasedAt: day(45) } });
    }
    if (p.voted !== null) {
      await db.inspirationPanel.create({
        data: {
          imageUrl: "/panel.png",
          title: `Idea ${run}-${index}`,
          postId: post.id,
          shippedAt: new Date(),
          votersGetAccess: p.voted,
          voters: { create: { userId: user.id } },
        },
      });
    }
    const versionIds: string[] = [];
    if (post.driveFileId) {
      const older = await db.postVersion.create({
        data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId, fileName: post.fileName!, size: post.fileSize!, createdAt: day(20) },
      });
      const current = await withVersion(post, "V2.0");
      versionIds.push(older.id, current.id);
      if (p.keptDownload !== "none") {
        const kept = p.keptDownload === "current" ? current : older;
        await recordDownload(user.id, post.id, kept.label, new Date(now - 86_400_000), "current-tier", kept.id);
      }
    }
    posts.push({ id: post.id, versionIds });
  }
  return { user, posts };
}

/** What the download endpoint serves this account: the post's current file, or one of its versions. */
async function downloadEndpointServes(cookie: string, post: { id: string; versionIds: string[] }): Promise<boolean> {
  for (const query of ["", ...post.versionIds.map((id) => `?version=${id}`)]) {
    const response = await callRoute(paidRoute, { method: "HEAD", path: `/api/download/${post.id}${query}`, params: { postId: post.id }, cookie });
    if (response.status === 200) return true;
  }
  return false;
}

describe("the manifest lists exactly what the account may download", () => {
  it("agrees with the download endpoint for random accounts (tiers, purchases, grants, release steps, votes, kept versions)", async () => {
    await fc.assert(
      fc.asyncProperty(accountShape, async (account) => {
        const { user, posts } = await arrange(account);
        const cookie = await sessionCookie(user.id);
        const manifest = await manifestOf(account.byToken ? { token: await tokenOf(user.id) } : { cookie });
        const listed = new Set(manifest.posts.map((post) => post.postId));
        for (const post of posts) {
          expect(listed.has(post.id), `post ${post.id} of ${JSON.stringify(account)}`).toBe(await downloadEndpointServes(cookie, post));
        }
      }),
      { numRuns: 30 },
    );
  }, 180_000);
});
