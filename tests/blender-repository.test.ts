// Blender extensions (docs/product.md#blender-extensions, docs/api.md#blender-repository): an
// admin marks a post as an add-on or theme, which only an extension ZIP with a valid
// blender_manifest.toml may be (refused otherwise, nothing stored); the account's repository
// GET /api/blender/index.json is Blender's listing format v1, lists exactly the marked posts the
// account may download, and each archive's size and hash are those of the bytes its address
// serves. Added files that are extensions are listed each at its own address when the account may
// download that file, one entry per extension id within a post (the variant chosen last time
// first). A personal token's last use is written, at most once a minute.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { LocalStorage, setStorageForTests } from "~/integrations/storage.server";
import { recordDownload } from "~/models/download.server";
import { makeVersionCurrent } from "~/models/post-version.server";
import { hashToken } from "~/models/session.server";
import * as tokensRoute from "~/routes/api.account.tokens";
import * as indexRoute from "~/routes/api.blender.index[.]json";
import * as filesRoute from "~/routes/api.library.files.$postId";
import * as postRoute from "~/routes/api.library.posts.$id";
import * as fileRoute from "~/routes/api.upload.file.$id";
import * as libraryRoute from "~/routes/library";
import { getToast } from "~/toast.server";
import { BLENDER_MESSAGES, checkBlenderManifest, malformedFieldMessage, missingFieldMessage } from "~/utils/blender-manifest";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_1, TIER_2, TIER_3 } from "./library-fixtures";
import { writeZip, type ZipFileSpec } from "./zip-files";
import { addVersionFileVia } from "./zip-versions";

globalThis.__allowConsoleError = false;

const folder = mkdtempSync(path.join(os.tmpdir(), "clib-blender-"));
const root = path.join(folder, "store");
const store = new LocalStorage(root);

/** Every file stored under the post's folder (temporary ones included). */
function storedFiles(postId: string): string[] {
  const dir = path.join(root, "posts", postId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

/**
 * Blender's remote repository listing, format v1, as the Blender manual documents it
 * ("Creating an Extensions Repository", "Extensions listing API"): required fields, optional
 * ones absent rather than empty.
 */
const blenderListingSchema = z
  .object({
    version: z.literal("v1"),
    blocklist: z.array(z.string()),
    data: z.array(
      z
        .object({
          id: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/),
          name: z.string().min(1),
          tagline: z.string().min(1).max(64),
          version: z.string().regex(/^\d+\.\d+\.\d+/),
          type: z.enum(["add-on", "theme"]),
          archive_url: z.string().url(),
          archive_size: z.number().int().positive(),
          archive_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
          maintainer: z.string().min(1),
          license: z.array(z.string().regex(/^SPDX:\S+$/)).min(1),
          blender_version_min: z.string().regex(/^\d+\.\d+\.\d+$/),
          blender_version_max: z
            .string()
            .regex(/^\d+\.\d+\.\d+$/)
            .optional(),
          schema_version: z.string().optional(),
          website: z.string().url().optional(),
          tags: z.array(z.string()).optional(),
          platforms: z.array(z.string()).optional(),
          permissions: z.record(z.string()).optional(),
        })
        .strict(),
    ),
  })
  .strict();
type Listing = z.infer<typeof blenderListingSchema>;

const GOOD_MANIFEST = `schema_version = "1.0.0"
id = "cabin_tools"
version = "1.2.0"
name = "Cabin Tools"
tagline = "Build log cabins in a few clicks"
maintainer = "The Creator <creator@example.com>"
type = "add-on"
website = "https://example.com/cabin-tools"
tags = ["Modeling", "Object"]
blender_version_min = "4.2.0"
license = ["SPDX:GPL-3.0-or-later"]
`;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let zipCounter = 0;
function zipBytes(files: ZipFileSpec[]): Buffer {
  zipCounter += 1;
  const file = path.join(folder, `archive-${zipCounter}.zip`);
  writeZip(file, files, { deflate: true });
  return readFileSync(file);
}

function extensionZip(manifest = GOOD_MANIFEST, folderName = ""): Buffer {
  return zipBytes([
    { name: `${folderName}blender_manifest.toml`, text: manifest },
    { name: `${folderName}__init__.py`, text: "def register():\n    pass\n\ndef unregister():\n    pass\n" },
  ]);
}

let admin: User;
let adminCookie: string;

function upload(postId: string, bytes: Buffer, fileName = "cabin_tools-1.2.0.zip") {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), fileName);
  return callRoute(fileRoute, { method: "POST", params: { id: postId }, cookie: adminCookie, form });
}

function mark(postId: string, kind: string) {
  return callRoute(postRoute, { method: "PUT", params: { id: postId }, cookie: adminCookie, json: { blender_extension: kind } });
}

/** The admin card's Save, as a browser without JavaScript posts it (only the marking changed). */
function saveCard(postId: string, kind: string) {
  return callRoute(libraryRoute, {
    method: "POST",
    path: "/library",
    cookie: adminCookie,
    form: { intent: "save", postId, back: "/library", blender_extension: kind, drawn_blender_extension: "none" },
  });
}

async function toastOf(response: Response) {
  const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const { toast } = await getToast(new Request("http://localhost:3999/library", { headers: { Cookie: cookie } }));
  return toast;
}

let tokenCounter = 0;
async function tokenOf(userId: string): Promise<string> {
  tokenCounter += 1;
  const token = `clt_blender-test-${tokenCounter}-${Date.now()}`;
  await db.apiToken.create({ data: { userId, tokenHash: hashToken(token), label: "Blender" } });
  return token;
}

function getIndex(token?: string) {
  return callRoute(indexRoute, { path: "/api/blender/index.json", headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

async function listingOf(token: string): Promise<Listing> {
  const response = await getIndex(token);
  expect(response.status).toBe(200);
  const body = await readJsonBody(response);
  const parsed = blenderListingSchema.safeParse(body);
  expect(parsed.error?.issues ?? []).toEqual([]);
  return parsed.data!;
}

/** Follows an archive address as Blender does: no cookie (the token is not needed by a signed address). */
function follow(url: string) {
  const address = new URL(url);
  const postId = decodeURIComponent(address.pathname.split("/").pop()!);
  return callRoute(filesRoute, { path: `${address.pathname}${address.search}`, params: { postId } });
}

/** What the database holds about a post's file and versions: a refusal must leave it as it was. */
async function fileState(postId: string) {
  const post = await db.post.findUniqueOrThrow({
    where: { id: postId },
    select: { blenderExtension: true, currentVersionId: true, driveFileId: true, version: true },
  });
  const versions = await db.postVersion.findMany({ where: { postId }, select: { id: true, blenderManifest: true }, orderBy: { id: "asc" } });
  return { post, versions };
}

beforeAll(async () => {
  setStorageForTests(store);
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

afterAll(() => {
  setStorageForTests(undefined);
  rmSync(folder, { recursive: true, force: true });
});

describe("checking blender_manifest.toml", () => {
  it("accepts a manifest with every required field, and names the first missing or malformed one", () => {
    expect(checkBlenderManifest(GOOD_MANIFEST)).toMatchObject({
      ok: true,
      manifest: { id: "cabin_tools", type: "add-on", license: ["SPDX:GPL-3.0-or-later"] },
    });
    expect(checkBlenderManifest(GOOD_MANIFEST.replace(/^tagline = .*\n/m, ""))).toEqual({ ok: false, message: missingFieldMessage("tagline") });
    expect(checkBlenderManifest(GOOD_MANIFEST.replace('license = ["SPDX:GPL-3.0-or-later"]', 'license = ["GPL"]'))).toEqual({
      ok: false,
      message: malformedFieldMessage("license", 'must be a list of SPDX ids like "SPDX:GPL-3.0-or-later"'),
    });
    expect(checkBlenderManifest(GOOD_MANIFEST.replace('blender_version_min = "4.2.0"', 'blender_version_min = "3.6.0"'))).toMatchObject({
      ok: false,
      message: expect.stringContaining('"blender_version_min" must be 4.2.0 or later'),
    });
    expect(checkBlenderManifest(GOOD_MANIFEST.replace('type = "add-on"', 'type = "plugin"'))).toMatchObject({
      ok: false,
      message: expect.stringContaining('"type" must be "add-on" or "theme"'),
    });
    expect(checkBlenderManifest('id = "x"\nname = ')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^The blender_manifest.toml could not be read: line 2/),
    });
  });
});

describe("marking a post as a Blender extension", () => {
  it("refuses to mark a post without a file, or whose file is not an extension, and changes nothing", async () => {
    const empty = await createPost({ tiers: [TIER_2], fileSize: null });
    const response = await mark(empty.id, "add-on");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: BLENDER_MESSAGES.noFile });
    expect((await fileState(empty.id)).post.blenderExtension).toBeNull();

    const plain = await createPost({ tiers: [TIER_2], fileSize: null });
    expect((await upload(plain.id, zipBytes([{ name: "mesh.obj", text: "v 0 0 0\n" }]), "plain.zip")).status).toBe(200);
    const before = await fileState(plain.id);
    const refused = await mark(plain.id, "theme");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: BLENDER_MESSAGES.missing });
    expect(await fileState(plain.id)).toEqual(before);
  });

  it("marks a post whose file is an extension of that kind, keeps its manifest, and refuses another kind", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: null });
    expect((await upload(post.id, extensionZip(GOOD_MANIFEST, "cabin_tools/"))).status).toBe(200);
    const asTheme = await mark(post.id, "theme");
    expect(asTheme.status).toBe(400);
    expect(((await asTheme.json()) as { error: string }).error).toMatch(/says type = "add-on", but the post is marked as a Blender theme/);
    const marked = await mark(post.id, "add-on");
    expect(marked.status).toBe(200);
    expect(((await marked.json()) as { post: { blender_extension: string } }).post.blender_extension).toBe("add-on");
    const state = await fileState(post.id);
    expect(state.post.blenderExtension).toBe("ADD_ON");
    expect(state.versions.find((version) => version.id === state.post.currentVersionId)?.blenderManifest).toMatchObject({
      id: "cabin_tools",
      version: "1.2.0",
    });
    // Unmarking needs no check.
    expect((await mark(post.id, "none")).status).toBe(200);
    expect((await fileState(post.id)).post.blenderExtension).toBeNull();
  });
});

describe("making an older version of a marked post current", () => {
  it("is refused when that version's file is not an extension, and changes nothing", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: null });
    expect((await upload(post.id, zipBytes([{ name: "readme.txt", text: "old" }]), "old.zip")).status).toBe(200);
    const plainVersion = (await fileState(post.id)).post.currentVersionId!;
    expect((await upload(post.id, extensionZip())).status).toBe(200);
    expect((await mark(post.id, "add-on")).status).toBe(200);
    const before = await fileState(post.id);
    await expect(makeVersionCurrent(admin, post.id, plainVersion)).rejects.toMatchObject({ status: 400, message: BLENDER_MESSAGES.missing });
    expect(await fileState(post.id)).toEqual(before);
  });
});

describe("marking from the admin card (no JavaScript)", () => {
  it("refuses with the reason as a toast and saves nothing, then marks a post whose file is an extension", async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: null });
    expect((await upload(post.id, zipBytes([{ name: "readme.txt", text: "hi" }]), "plain.zip")).status).toBe(200);
    const refused = await saveCard(post.id, "add-on");
    expect(await toastOf(refused)).toMatchObject({ type: "error", message: BLENDER_MESSAGES.missing });
    expect((await fileState(post.id)).post.blenderExtension).toBeNull();

    expect((await upload(post.id, extensionZip())).status).toBe(200);
    const saved = await saveCard(post.id, "add-on");
    expect(await toastOf(saved)).toMatchObject({ type: "success", message: "Post updated." });
    expect((await fileState(post.id)).post.blenderExtension).toBe("ADD_ON");
  });
});

describe("uploading to a post marked as a Blender extension", () => {
  let postId: string;

  beforeAll(async () => {
    const post = await createPost({ tiers: [TIER_2], fileSize: null });
    postId = post.id;
    expect((await upload(postId, extensionZip())).status).toBe(200);
    expect((await mark(postId, "add-on")).status).toBe(200);
  });

  const refusals: [string, () => Buffer, string | RegExp][] = [
    ["a ZIP without a manifest", () => zipBytes([{ name: "__init__.py", text: "pass\n" }]), BLENDER_MESSAGES.missing],
    ["a manifest below two folders", () => zipBytes([{ name: "a/b/blender_manifest.toml", text: GOOD_MANIFEST }]), BLENDER_MESSAGES.missing],
    ["a manifest without its version", () => extensionZip(GOOD_MANIFEST.replace(/^version = .*\n/m, "")), missingFieldMessage("version")],
    ["a manifest that is not TOML", () => extensionZip('id = "cabin_tools"\nname = "unclosed\n'), /^The blender_manifest.toml could not be read: line 2/],
    [
      "a malformed id",
      () => extensionZip(GOOD_MANIFEST.replace('id = "cabin_tools"', 'id = "cabin-tools"')),
      malformedFieldMessage("id", "must start with a letter and hold only letters, digits and _"),
    ],
  ];

  it.each(refusals)("refuses %s with the message naming it, and stores nothing", async (_name, bytes, message) => {
    const before = await fileState(postId);
    const filesBefore = storedFiles(postId);
    const response = await upload(postId, bytes(), "next.zip");
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: string };
    if (typeof message === "string") expect(error).toBe(message);
    else expect(error).toMatch(message);
    expect(await fileState(postId)).toEqual(before);
    expect(storedFiles(postId)).toEqual(filesBefore);
  });

  it("refuses a file that is not a ZIP", async () => {
    const before = await fileState(postId);
    const response = await upload(postId, Buffer.from("not an archive at all"), "readme.txt");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: BLENDER_MESSAGES.notZip });
    expect(await fileState(postId)).toEqual(before);
    expect(storedFiles(postId)).not.toContain("readme.txt");
  });

  it("accepts a valid extension and keeps its manifest with the new version", async () => {
    const response = await upload(postId, extensionZip(GOOD_MANIFEST.replace('version = "1.2.0"', 'version = "1.3.0"')), "cabin_tools-1.3.0.zip");
    expect(response.status).toBe(200);
    const state = await fileState(postId);
    expect(state.versions.find((version) => version.id === state.post.currentVersionId)?.blenderManifest).toMatchObject({ version: "1.3.0" });
  });
});

describe("GET /api/blender/index.json", () => {
  let member: User;
  let outsider: User;
  let addOnId: string;
  let plainId: string;

  beforeAll(async () => {
    member = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    outsider = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
    const addOn = await createPost({ tiers: [TIER_2], fileSize: null, title: "Cabin Tools" });
    addOnId = addOn.id;
    expect((await upload(addOnId, extensionZip())).status).toBe(200);
    expect((await mark(addOnId, "add-on")).status).toBe(200);
    // Downloadable by the member but not marked: not in the repository.
    const plain = await createPost({ tiers: [TIER_2], fileSize: null });
    plainId = plain.id;
    expect((await upload(plainId, zipBytes([{ name: "mesh.obj", text: "v 1 1 1\n" }]), "mesh.zip")).status).toBe(200);
  });

  it("is Blender's listing v1 of the marked posts the account may download, each archive's size and hash those of the bytes served", async () => {
    const listing = await listingOf(await tokenOf(member.id));
    expect(listing.version).toBe("v1");
    expect(listing.blocklist).toEqual([]);
    const entry = listing.data.find((item) => item.archive_url.includes(`/api/library/files/${addOnId}?`));
    expect(entry).toMatchObject({
      schema_version: "1.0.0",
      id: "cabin_tools",
      name: "Cabin Tools",
      tagline: "Build log cabins in a few clicks",
      version: "1.2.0",
      type: "add-on",
      maintainer: "The Creator <creator@example.com>",
      license: ["SPDX:GPL-3.0-or-later"],
      blender_version_min: "4.2.0",
      website: "https://example.com/cabin-tools",
      tags: ["Modeling", "Object"],
    });
    expect(listing.data.some((item) => item.archive_url.includes(`/api/library/files/${plainId}?`))).toBe(false);
    // The address serves the copy stamped with the account's leak-trace number: its hash, not the stored file's.
    const stored = await db.postVersion.findFirstOrThrow({ where: { postId: addOnId }, select: { sha256: true } });
    expect(entry!.archive_hash).not.toBe(`sha256:${stored.sha256}`);
    for (const item of listing.data) {
      const served = await follow(item.archive_url);
      expect(served.status).toBe(200);
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(bytes.length).toBe(item.archive_size);
      expect(`sha256:${sha256(bytes)}`).toBe(item.archive_hash);
    }
  });

  it("does not list a post the account may not download", async () => {
    const listing = await listingOf(await tokenOf(outsider.id));
    expect(listing.data.some((item) => item.archive_url.includes(`/api/library/files/${addOnId}?`))).toBe(false);
  });

  it("is 401 without a token and with an unknown one", async () => {
    expect((await getIndex()).status).toBe(401);
    expect((await getIndex("clt_not-a-token")).status).toBe(401);
  });
});

describe("a personal token's last use", () => {
  it("is written when the token authenticates, at most once a minute, and shown in the token list", async () => {
    const user = await createTestUser({ tosAccepted: true });
    const token = await tokenOf(user.id);
    const row = () => db.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(token) } });
    expect((await row()).lastUsedAt).toBeNull();

    expect((await getIndex(token)).status).toBe(200);
    const first = (await row()).lastUsedAt;
    expect(first).not.toBeNull();

    // Within the minute: not written again.
    const recent = new Date(Date.now() - 20_000);
    await db.apiToken.update({ where: { tokenHash: hashToken(token) }, data: { lastUsedAt: recent } });
    expect((await getIndex(token)).status).toBe(200);
    expect((await row()).lastUsedAt).toEqual(recent);

    // Older than a minute: written again.
    const old = new Date(Date.now() - 5 * 60_000);
    await db.apiToken.update({ where: { tokenHash: hashToken(token) }, data: { lastUsedAt: old } });
    expect((await getIndex(token)).status).toBe(200);
    expect((await row()).lastUsedAt!.getTime()).toBeGreaterThan(old.getTime() + 60_000);

    const list = await callRoute(tokensRoute, { path: "/api/account/tokens", cookie: await sessionCookie(user.id) });
    expect(list.status).toBe(200);
    const { tokens } = await readJsonBody<{ tokens: { label: string; last_used_at: string | null }[] }>(list);
    expect(tokens.find((item) => item.label === "Blender")?.last_used_at).toBe((await row()).lastUsedAt!.toISOString());
  });
});

describe("added files that are extensions (variants, add-ons, translations)", () => {
  const withId = (id: string, name: string) => GOOD_MANIFEST.replace('id = "cabin_tools"', `id = "${id}"`).replace('name = "Cabin Tools"', `name = "${name}"`);
  let postId: string;
  let versionId: string;
  let tier1: User;
  let tier3: User;
  const files = { lite: "", brushes: "", german: "" };

  beforeAll(async () => {
    tier1 = await createTestUser({ currentTierId: TIER_1, tosAccepted: true });
    tier3 = await createTestUser({ currentTierId: TIER_3, tosAccepted: true });
    const post = await createPost({ tiers: [TIER_1, TIER_2, TIER_3], fileSize: null, title: "Cabin Suite" });
    postId = post.id;
    expect((await upload(postId, extensionZip(withId("cabin_suite", "Cabin Suite")), "suite.zip")).status).toBe(200);
    expect((await mark(postId, "add-on")).status).toBe(200);
    versionId = (await db.post.findUniqueOrThrow({ where: { id: postId } })).currentVersionId!;
    // A lighter build of the same extension (its id), an add-on of its own for Tier 3, a translation of its own.
    files.lite = await addVersionFileVia(
      adminCookie,
      postId,
      versionId,
      { role: "variant", label: "Lite" },
      extensionZip(withId("cabin_suite", "Cabin Suite Lite")),
      "lite.zip",
    );
    files.brushes = await addVersionFileVia(
      adminCookie,
      postId,
      versionId,
      { role: "optional", label: "Brushes", gateTierIds: TIER_3 },
      extensionZip(withId("cabin_brushes", "Cabin Brushes")),
      "brushes.zip",
    );
    files.german = await addVersionFileVia(
      adminCookie,
      postId,
      versionId,
      { role: "translation", label: "Deutsch" },
      extensionZip(withId("cabin_suite_de", "Cabin Suite DE")),
      "de.zip",
    );
  });

  /** This post's entries: id, and the file its address names ("" for the main file). */
  function entriesOfPost(listing: Listing) {
    return listing.data
      .filter((item) => item.archive_url.includes(`/api/library/files/${postId}?`))
      .map((item) => [item.id, new URL(item.archive_url).searchParams.get("file") ?? ""]);
  }

  async function servesWhatItSays(listing: Listing) {
    for (const item of listing.data.filter((entry) => entry.archive_url.includes(`/api/library/files/${postId}?`))) {
      const served = await follow(item.archive_url);
      expect(served.status).toBe(200);
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(bytes.length).toBe(item.archive_size);
      expect(`sha256:${sha256(bytes)}`).toBe(item.archive_hash);
    }
  }

  it("keeps each added extension's checked manifest", async () => {
    const rows = await db.versionFile.findMany({ where: { versionId }, orderBy: { position: "asc" } });
    expect(rows.map((row) => (row.blenderManifest as { id: string } | null)?.id)).toEqual(["cabin_suite", "cabin_brushes", "cabin_suite_de"]);
  });

  it("lists each added extension the account may download at its own address; an add-on gated to Tier 3 is absent for Tier 1", async () => {
    const forTier1 = await listingOf(await tokenOf(tier1.id));
    expect(entriesOfPost(forTier1)).toEqual([
      ["cabin_suite", ""],
      ["cabin_suite_de", files.german],
    ]);
    await servesWhatItSays(forTier1);
    const forTier3 = await listingOf(await tokenOf(tier3.id));
    expect(entriesOfPost(forTier3)).toEqual([
      ["cabin_suite", ""],
      ["cabin_brushes", files.brushes],
      ["cabin_suite_de", files.german],
    ]);
    expect(forTier3.data.find((item) => item.id === "cabin_brushes")).toMatchObject({ name: "Cabin Brushes", type: "add-on" });
    await servesWhatItSays(forTier3);
  });

  it("lists one entry per id: the variant the account chose last time takes the main file's place", async () => {
    await recordDownload(tier1.id, postId, "V1.0", new Date(), "current-tier", versionId, undefined, files.lite);
    const listing = await listingOf(await tokenOf(tier1.id));
    expect(entriesOfPost(listing)).toEqual([
      ["cabin_suite", files.lite],
      ["cabin_suite_de", files.german],
    ]);
    expect(listing.data.find((item) => item.id === "cabin_suite")?.name).toBe("Cabin Suite Lite");
    await servesWhatItSays(listing);
  });
});
