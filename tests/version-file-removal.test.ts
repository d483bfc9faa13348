// Removing a file added to a version (docs/product.md#files-of-a-version, decision 022), and the
// library cards listing the current version's added files with each one's access line. An admin
// removes a file through DELETE /api/admin/posts/{id}/files/{fileId} or the editor's / post page's
// form (no JavaScript); the file is gone from every page, listing and download, its bytes from
// storage, while the download records that name it stay readable. Cards and GET /api/library/posts
// say for each added file what the entitlement rule for that file says.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { loadViewerContext, toEntitlementPost, withAccess } from "~/models/entitlement.server";
import type { LibraryManifest } from "~/models/library-manifest.server";
import { chosenVariants, gateOf, type CardFile, type FileView } from "~/models/version-files.server";
import { recordDownload } from "~/models/download.server";
import * as fileRoute from "~/routes/api.admin.posts.$id.files.$fileId";
import * as addFileRoute from "~/routes/api.admin.posts.$id.versions.$versionId.files";
import * as editorRoute from "~/routes/admin_.posts_.$postId";
import * as libraryRoute from "~/routes/library";
import * as listingRoute from "~/routes/api.library.posts";
import * as manifestRoute from "~/routes/api.library.manifest";
import * as paidRoute from "~/routes/api.download.$postId";
import * as postApiRoute from "~/routes/api.library.posts.$id";
import * as postPageRoute from "~/routes/library_.$postId";
import { explainFileAccess } from "~/utils/entitlement";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, fileBytes, TIER_2, TIER_3 } from "./library-fixtures";

let admin: User;
let fan: User;
let supporter: User;
let post: Awaited<ReturnType<typeof createPost>>;
let mainOnly: Awaited<ReturnType<typeof createPost>>;
let versionId = "";
const files: Record<"maxis" | "alpha" | "addon" | "deutsch", string> = { maxis: "", alpha: "", addon: "", deutsch: "" };

async function addFile(fields: Record<string, string>, size: number, fileName: string): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(fileBytes(size, size % 97))]), fileName);
  const response = await callRoute(addFileRoute, { method: "POST", params: { id: post.id, versionId }, cookie: await sessionCookie(admin.id), form });
  expect(response.status).toBe(201);
  return ((await response.json()) as { file: { fileId: string } }).file.fileId;
}

async function remove(fileId: string, user: User | null, postId = post.id) {
  return callRoute(fileRoute, { method: "DELETE", params: { id: postId, fileId }, cookie: user ? await sessionCookie(user.id) : undefined });
}

async function cardsAs(user: User | null) {
  const response = await callRoute(libraryRoute, { path: "/library", cookie: user ? await sessionCookie(user.id) : undefined });
  return (await response.json()) as { posts: { postId: string; files?: unknown }[]; files: Record<string, CardFile[]> };
}

async function postApiFiles(user: User | null): Promise<FileView[]> {
  const response = await callRoute(postApiRoute, {
    path: `/api/library/posts/${post.id}`,
    params: { id: post.id },
    cookie: user ? await sessionCookie(user.id) : undefined,
  });
  return ((await response.json()) as { files: FileView[] }).files;
}

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  fan = await createTestUser({ tosAccepted: true });
  supporter = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  post = await createPost({ tiers: [TIER_2, TIER_3], title: "Removable Hair", kofiId: null });
  const version = await db.postVersion.create({
    data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize! },
  });
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: version.id } });
  versionId = version.id;
  files.maxis = await addFile({ role: "variant", label: "Maxis Match" }, 3000, "hair-mm.package");
  files.alpha = await addFile({ role: "variant", label: "Alpha" }, 3100, "hair-alpha.package");
  files.addon = await addFile({ role: "optional", label: "Accessories", gateTierIds: TIER_3 }, 1200, "hair-acc.package");
  files.deutsch = await addFile({ role: "translation", label: "Deutsch" }, 500, "hair-de.package");
  // A post of today: one main file, nothing else.
  mainOnly = await createPost({ tiers: [TIER_2], title: "Plain Post", kofiId: null });
});

describe("library cards list the current version's added files", () => {
  const cases: { who: string; user: () => User | null; words: string[] }[] = [
    {
      who: "a guest",
      user: () => null,
      words: [
        "Variant: Maxis Match · unlocked by Tier 2 or Tier 3",
        "Variant: Alpha · unlocked by Tier 2 or Tier 3",
        "Optional add-on: Accessories · unlocked by Tier 3",
        "Translation: Deutsch · unlocked by Tier 2 or Tier 3",
      ],
    },
    {
      who: "a fan without a tier",
      user: () => fan,
      words: [
        "Variant: Maxis Match · unlocked by Tier 2 or Tier 3",
        "Variant: Alpha · unlocked by Tier 2 or Tier 3",
        "Optional add-on: Accessories · unlocked by Tier 3",
        "Translation: Deutsch · unlocked by Tier 2 or Tier 3",
      ],
    },
    {
      who: "a Tier 2 supporter (not the add-on's Tier 3)",
      user: () => supporter,
      words: [
        "Variant: Maxis Match · you have it",
        "Variant: Alpha · you have it",
        "Optional add-on: Accessories · unlocked by Tier 3",
        "Translation: Deutsch · you have it",
      ],
    },
  ];
  for (const { who, user, words } of cases) {
    it(`${who}: each file's line says what the rule for that file says`, async () => {
      const data = await cardsAs(user());
      const lines = data.files[post.id]!;
      expect(
        lines.map(
          (line) => `${{ variant: "Variant", optional: "Optional add-on", translation: "Translation", main: "" }[line.role]}: ${line.name} · ${line.access}`,
        ),
      ).toEqual(words);
      // "you have it" exactly where the entitlement rule for that file allows it.
      const loaded = await db.post.findUniqueOrThrow({ where: { id: post.id }, include: withAccess });
      const viewer = (await loadViewerContext(user())).viewer;
      const rows = await db.versionFile.findMany({ where: { versionId }, orderBy: { position: "asc" } });
      expect(lines.map((line) => line.access === "you have it")).toEqual(
        rows.map((row) => explainFileAccess(toEntitlementPost(loaded), gateOf(row), viewer).allowed),
      );
      // A post with a main file only gets no list, and the cards' posts carry no file rows.
      expect(data.files[mainOnly.id]).toBeUndefined();
      expect(data.posts.every((item) => item.files === undefined)).toBe(true);
    });
  }

  it("GET /api/library/posts carries each added file with the viewer's access, only for posts that have some", async () => {
    const response = await callRoute(listingRoute, { path: "/api/library/posts", cookie: await sessionCookie(supporter.id) });
    const { posts } = (await response.json()) as { posts: { postId: string; files?: FileView[] }[] };
    const listed = posts.find((item) => item.postId === post.id)!;
    expect(listed.files!.map((file) => [file.role, file.label, file.unlocked, file.gate?.tierIds ?? null])).toEqual([
      ["main", "", true, null],
      ["variant", "Maxis Match", true, null],
      ["variant", "Alpha", true, null],
      ["optional", "Accessories", false, [TIER_3]],
      ["translation", "Deutsch", true, null],
    ]);
    expect(posts.find((item) => item.postId === mainOnly.id)).not.toHaveProperty("files");
    // The same per-file words as the post's own page in the API.
    expect(listed.files).toEqual(await postApiFiles(supporter));
  });
});

describe("DELETE /api/admin/posts/{id}/files/{fileId}", () => {
  it("is for admins only, and answers 404 for an unknown file or another post's", async () => {
    expect((await remove(files.maxis, null)).status).toBe(401);
    const refused = await remove(files.maxis, supporter);
    expect(refused.status).toBe(403);
    const unknown = await remove("no-such-file", admin);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "This file does not exist or is no longer available." });
    expect((await remove(files.maxis, admin, mainOnly.id)).status).toBe(404);
    expect(await db.versionFile.count({ where: { versionId, removedAt: { not: null } } })).toBe(0);
  });

  it("removes the file from every page, listing and download; its bytes go, the download records stay readable", async () => {
    // The supporter picked Alpha: "Download all updates" would fetch it.
    const cookie = await sessionCookie(supporter.id);
    const downloaded = await callRoute(paidRoute, { path: `/api/download/${post.id}?file=${files.alpha}`, params: { postId: post.id }, cookie });
    expect(downloaded.status).toBe(200);
    await downloaded.arrayBuffer();
    await recordDownload(supporter.id, post.id, "V1.0", new Date(), "current-tier", versionId, undefined, files.alpha);
    const entitlement = toEntitlementPost(await db.post.findUniqueOrThrow({ where: { id: post.id }, include: withAccess }));
    const viewer = (await loadViewerContext(supporter)).viewer;
    const chosen = () => chosenVariants(supporter.id, [{ id: post.id, entitlement }], viewer, new Date());
    expect((await chosen()).get(post.id)).toEqual({ fileId: files.alpha, label: "Alpha" });
    const key = (await db.versionFile.findUniqueOrThrow({ where: { id: files.alpha } })).storageKey;

    const response = await remove(files.alpha, admin);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: "File removed from the version." });

    expect((await postApiFiles(supporter)).map((file) => file.label)).toEqual(["", "Maxis Match", "Accessories", "Deutsch"]);
    expect((await cardsAs(supporter)).files[post.id]!.map((line) => line.name)).toEqual(["Maxis Match", "Accessories", "Deutsch"]);
    const manifest = (await (await callRoute(manifestRoute, { path: "/api/library/manifest", cookie })).json()) as LibraryManifest;
    expect(manifest.posts.find((item) => item.postId === post.id)!.files.map((file) => file.label)).not.toContain("Alpha");
    expect((await callRoute(paidRoute, { path: `/api/download/${post.id}?file=${files.alpha}`, params: { postId: post.id }, cookie })).status).toBe(404);
    expect((await chosen()).get(post.id)).toBeUndefined();
    expect(await (await storage()).stat(key)).toBeNull();

    // History: the rows that name the file still name it, with its label.
    const history = await db.download.findMany({
      where: { userId: supporter.id, fileId: files.alpha },
      include: { versionFile: { select: { label: true, removedAt: true } } },
    });
    expect(history.length).toBeGreaterThan(0);
    expect(history.every((row) => row.versionFile?.label === "Alpha" && row.versionFile.removedAt !== null)).toBe(true);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { action: "post.version.file.remove", targetId: post.id } });
    expect(audit.actorId).toBe(admin.id);

    // Gone is gone: removing it again is a 404, and so is changing it.
    expect((await remove(files.alpha, admin)).status).toBe(404);
    const update = await callRoute(fileRoute, {
      method: "PUT",
      params: { id: post.id, fileId: files.alpha },
      cookie: await sessionCookie(admin.id),
      json: { role: "variant", label: "Alpha" },
    });
    expect(update.status).toBe(404);
  });

  it("keeps the bytes when another file still uses its key", async () => {
    const stored = await db.versionFile.findUniqueOrThrow({ where: { id: files.deutsch } });
    const { id: _id, createdAt: _created, zipEntries: _entries, blenderManifest: _manifest, ...copy } = stored;
    const twin = await db.versionFile.create({ data: { ...copy, label: "Deutsch (copy)" } });
    expect((await remove(twin.id, admin)).status).toBe(200);
    expect(await (await storage()).stat(stored.storageKey)).not.toBeNull();
  });
});

describe("removing a file without JavaScript", () => {
  it("the editor asks on a page at ?remove-file=<id>, and its form removes the file and comes back", async () => {
    const cookie = await sessionCookie(admin.id);
    const editor = `/admin/posts/${post.id}`;
    const page = (await (await callRoute(editorRoute, { path: `${editor}?remove-file=${files.maxis}`, params: { postId: post.id }, cookie })).json()) as {
      files: { fileId: string }[];
      removeFile: { fileId: string; label: string } | null;
    };
    expect(page.files.map((file) => file.fileId)).toContain(files.maxis);
    expect(page.removeFile).toMatchObject({ fileId: files.maxis, label: "Maxis Match" });
    const done = await callRoute(editorRoute, {
      method: "POST",
      path: editor,
      params: { postId: post.id },
      cookie,
      form: { intent: "remove-file", fileId: files.maxis },
    });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe(editor);
    expect((await db.versionFile.findUniqueOrThrow({ where: { id: files.maxis } })).removedAt).not.toBeNull();
  });

  it("the post page's form posts to the library's action, for admins only", async () => {
    const back = `/library/${post.id}`;
    const form = { intent: "remove-file", postId: post.id, fileId: files.addon, back };
    const page = (await (
      await callRoute(postPageRoute, { path: `${back}?remove-file=${files.addon}`, params: { postId: post.id }, cookie: await sessionCookie(admin.id) })
    ).json()) as {
      removeFileId: string | null;
    };
    expect(page.removeFileId).toBe(files.addon);
    const asUser = (await (
      await callRoute(postPageRoute, { path: `${back}?remove-file=${files.addon}`, params: { postId: post.id }, cookie: await sessionCookie(supporter.id) })
    ).json()) as typeof page;
    expect(asUser.removeFileId).toBeNull();

    const refused = await callRoute(libraryRoute, { method: "POST", path: "/library", cookie: await sessionCookie(supporter.id), form });
    expect(refused.status).toBe(302);
    expect((await db.versionFile.findUniqueOrThrow({ where: { id: files.addon } })).removedAt).toBeNull();

    const done = await callRoute(libraryRoute, { method: "POST", path: "/library", cookie: await sessionCookie(admin.id), form });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe(back);
    expect((await db.versionFile.findUniqueOrThrow({ where: { id: files.addon } })).removedAt).not.toBeNull();
    // Only the translation is left: the card lists it alone.
    expect((await cardsAs(null)).files[post.id]!.map((line) => line.name)).toEqual(["Deutsch"]);
  });
});
