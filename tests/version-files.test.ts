// Several files per version (docs/product.md#files-of-a-version): an admin adds variants and an
// add-on with its own gate to a version through the API and the post page's form; who may
// download which file is the entitlement rule for that file, and every download route, the post
// page and its API answer the same; the download record names the file.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import { loadViewerContext, toEntitlementPost, withAccess } from "~/models/entitlement.server";
import { gateOf } from "~/models/version-files.server";
import { recordDownload } from "~/models/download.server";
import * as versionsRoute from "~/routes/library.$postId.versions";
import { verdictFor, type KnownVersion } from "~/utils/verify-file";
import { createHash } from "node:crypto";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { VersionFiles } from "~/components/version-files";
import * as postPageRoute from "~/routes/library_.$postId";
import type { FileView } from "~/models/version-files.server";
import type { LibraryPost } from "~/models/library-listing.server";
import type { ApiTier } from "~/models/tier.server";
import * as addFileRoute from "~/routes/api.admin.posts.$id.versions.$versionId.files";
import * as updateFileRoute from "~/routes/api.admin.posts.$id.files.$fileId";
import * as paidRoute from "~/routes/api.download.$postId";
import * as freeRoute from "~/routes/api.download.freedownload.$postId";
import * as libraryRoute from "~/routes/library";
import * as postApiRoute from "~/routes/api.library.posts.$id";
import * as manifestRoute from "~/routes/api.library.manifest";
import * as filesRoute from "~/routes/api.library.files.$postId";
import type { LibraryManifest } from "~/models/library-manifest.server";
import * as updatesRoute from "~/routes/account.updates";
import { storage } from "~/integrations/storage.server";
import { explainFileAccess } from "~/utils/entitlement";
import { requestDocument } from "./documents";
import { appDatabaseSettled, callRoute, createTestUser, sessionCookie } from "./helpers";
import { createPost, createTiers, fileBytes, TIER_2, TIER_3 } from "./library-fixtures";

const sha256 = (content: Buffer) => createHash("sha256").update(content).digest("hex");

let admin: User;
let fan: User;
let supporter: User;
let topSupporter: User;
let post: Awaited<ReturnType<typeof createPost>>;
let versionId = "";
const files: Record<"maxis" | "alpha" | "addon", string> = { maxis: "", alpha: "", addon: "" };
const bytes = { maxis: fileBytes(3000, 41), alpha: fileBytes(3100, 42), addon: fileBytes(1200, 43) };

function addFile(fields: Record<string, string>, content: Buffer, fileName: string, cookie: string, postId = post.id) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(content)]), fileName);
  return callRoute(addFileRoute, { method: "POST", params: { id: postId, versionId }, cookie, form });
}

async function download(user: User | null, fileId: string | null) {
  const query = fileId ? `?file=${fileId}` : "";
  return callRoute(paidRoute, {
    path: `/api/download/${post.id}${query}`,
    params: { postId: post.id },
    cookie: user ? await sessionCookie(user.id) : undefined,
  });
}

beforeAll(async () => {
  await createTiers();
  admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  fan = await createTestUser({ tosAccepted: true });
  supporter = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
  topSupporter = await createTestUser({ currentTierId: TIER_3, tosAccepted: true });
  post = await createPost({ tiers: [TIER_2, TIER_3], title: "Variant Hair", kofiId: null });
  const version = await db.postVersion.create({
    data: { postId: post.id, label: "V1.0", storageKey: post.driveFileId!, fileName: post.fileName!, size: post.fileSize! },
  });
  await db.post.update({ where: { id: post.id }, data: { currentVersionId: version.id } });
  versionId = version.id;
  const cookie = await sessionCookie(admin.id);
  for (const [key, fields, name] of [
    ["maxis", { role: "variant", label: "Maxis Match" }, "hair-mm.package"],
    ["alpha", { role: "variant", label: "Alpha" }, "hair-alpha.package"],
    ["addon", { role: "optional", label: "Accessories", gateTierIds: TIER_3 }, "hair-accessories.package"],
  ] as const) {
    const response = await addFile(fields, bytes[key], name, cookie);
    expect(response.status).toBe(201);
    files[key] = ((await response.json()) as { file: { fileId: string } }).file.fileId;
  }
});

describe("adding files to a version", () => {
  it("stores each file with its role, label, hashes and gate", async () => {
    const rows = await db.versionFile.findMany({ where: { versionId }, orderBy: { position: "asc" } });
    expect(rows.map((row) => [row.role, row.label, Number(row.size), row.gateTierIds, row.position])).toEqual([
      ["VARIANT", "Maxis Match", 3000, [], 0],
      ["VARIANT", "Alpha", 3100, [], 1],
      ["OPTIONAL", "Accessories", 1200, [TIER_3], 2],
    ]);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.sha256) && row.contentHash.length === 64)).toBe(true);
  });

  it("refuses a variant without a label, a gate naming no tier, and non-admins, storing nothing", async () => {
    const before = await db.versionFile.count();
    const noLabel = await addFile({ role: "variant" }, fileBytes(100, 1), "x.package", await sessionCookie(admin.id));
    expect(noLabel.status).toBe(400);
    expect(((await noLabel.json()) as { error: string }).error).toBe("Variants and translations need a label, such as “Maxis Match” or “Deutsch”.");
    const unknownTier = await addFile({ role: "optional", gateTierIds: "no-such-tier" }, fileBytes(100, 2), "y.package", await sessionCookie(admin.id));
    expect(unknownTier.status).toBe(400);
    const notAdmin = await addFile({ role: "optional" }, fileBytes(100, 3), "z.package", await sessionCookie(supporter.id));
    expect(notAdmin.status).toBe(403);
    expect(await db.versionFile.count()).toBe(before);
  });

  it("adds a file through the post page's form without JavaScript (multipart to the library's action)", async () => {
    const form = new FormData();
    form.append("role", "translation");
    form.append("label", "Deutsch");
    form.append("gateTierIds", "");
    form.append("file", new Blob([new Uint8Array(fileBytes(500, 44))]), "hair-de.package");
    const back = `/library/${post.id}`;
    const response = await callRoute(libraryRoute, {
      method: "POST",
      path: `/library?intent=upload-version-file&postId=${post.id}&versionId=${versionId}&back=${encodeURIComponent(back)}`,
      cookie: await sessionCookie(admin.id),
      form,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(back);
    const added = await db.versionFile.findFirstOrThrow({ where: { versionId, label: "Deutsch" } });
    expect(added.role).toBe("TRANSLATION");
    expect(gateOf(added)).toBeNull();
  });
});

describe("per-file gates against the entitlement rule", () => {
  const cases: { who: string; user: () => User | null; main: number; variant: number; addon: number }[] = [
    { who: "a guest", user: () => null, main: 403, variant: 403, addon: 403 },
    { who: "a fan without a tier", user: () => fan, main: 403, variant: 403, addon: 403 },
    { who: "a supporter of the post's Tier 2 (not the add-on's Tier 3)", user: () => supporter, main: 200, variant: 200, addon: 403 },
    { who: "a supporter of Tier 3", user: () => topSupporter, main: 200, variant: 200, addon: 200 },
    { who: "an admin", user: () => admin, main: 200, variant: 200, addon: 200 },
  ];
  for (const { who, user, main, variant, addon } of cases) {
    it(`${who}: main ${main}, variant ${variant}, add-on ${addon}, as the rule decides`, async () => {
      const statuses = {
        main: (await download(user(), null)).status,
        variant: (await download(user(), files.maxis)).status,
        addon: (await download(user(), files.addon)).status,
      };
      expect(statuses).toEqual({ main, variant, addon });
      // The routes answer what the one rule says for each file.
      const loaded = await db.post.findUniqueOrThrow({ where: { id: post.id }, include: withAccess });
      const viewer = (await loadViewerContext(user())).viewer;
      const rows = await db.versionFile.findMany({ where: { id: { in: [files.maxis, files.addon] } } });
      const allowed = (fileId: string | null) =>
        explainFileAccess(toEntitlementPost(loaded), gateOf(rows.find((row) => row.id === fileId) ?? null), viewer).allowed ? 200 : 403;
      expect({ main: allowed(null), variant: allowed(files.maxis), addon: allowed(files.addon) }).toEqual(statuses);
    });
  }

  it("serves the file's own bytes and records the download with its file", async () => {
    const response = await download(topSupporter, files.addon);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes.addon)).toBe(true);
    const variantResponse = await download(topSupporter, files.alpha);
    expect(Buffer.from(await variantResponse.arrayBuffer()).equals(bytes.alpha)).toBe(true);
    await appDatabaseSettled();
    const rows = await db.download.findMany({ where: { userId: topSupporter.id, postId: post.id, fileId: { in: [files.addon, files.alpha] } } });
    expect(rows.map((row) => [row.fileId, row.versionId, row.version]).sort()).toEqual(
      [
        [files.addon, versionId, "V1.0"],
        [files.alpha, versionId, "V1.0"],
      ].sort(),
    );
  });

  it("a file of another post is not found", async () => {
    const other = await createPost({ tiers: [TIER_2] });
    const response = await callRoute(paidRoute, {
      path: `/api/download/${other.id}?file=${files.maxis}`,
      params: { postId: other.id },
      cookie: await sessionCookie(admin.id),
    });
    expect(response.status).toBe(404);
  });

  it("a free post's file with a gate of its own gets no signed address, and its other files do", async () => {
    const free = await createPost({ paid: false, kofiId: null });
    const version = await db.postVersion.create({
      data: { postId: free.id, label: "V1.0", storageKey: free.driveFileId!, fileName: free.fileName!, size: free.fileSize! },
    });
    await db.post.update({ where: { id: free.id }, data: { currentVersionId: version.id } });
    const stored = await db.versionFile.findUniqueOrThrow({ where: { id: files.maxis } });
    const copy = (gateTierIds: string[]) =>
      db.versionFile.create({
        data: {
          versionId: version.id,
          role: "OPTIONAL",
          storageKey: stored.storageKey,
          fileName: "x.package",
          size: stored.size,
          sha256: stored.sha256,
          contentHash: stored.contentHash,
          gateTierIds,
        },
      });
    const [open, gated] = [await copy([]), await copy([TIER_3])];
    const ask = (fileId: string) =>
      callRoute(freeRoute, { path: `/api/download/freedownload/${free.id}?file=${fileId}`, params: { postId: free.id }, cookie: undefined });
    expect((await ask(open.id)).status).toBe(200);
    expect((await ask(gated.id)).status).toBe(403);
  });

  it("an admin changes a file's gate through the API, and the next download follows it", async () => {
    const response = await callRoute(updateFileRoute, {
      method: "PUT",
      params: { id: post.id, fileId: files.addon },
      cookie: await sessionCookie(admin.id),
      json: { role: "optional", label: "Accessories", gateTierIds: [] },
    });
    expect(response.status).toBe(200);
    expect((await download(supporter, files.addon)).status).toBe(200);
    await callRoute(updateFileRoute, {
      method: "PUT",
      params: { id: post.id, fileId: files.addon },
      cookie: await sessionCookie(admin.id),
      json: { role: "optional", label: "Accessories", gateTierIds: [TIER_3] },
    });
    expect((await download(supporter, files.addon)).status).toBe(403);
  });
});

describe("the post page and its API", () => {
  it("list the current version's files by role, each with the viewer's access and its own gate", async () => {
    const response = await callRoute(postApiRoute, {
      path: `/api/library/posts/${post.id}`,
      params: { id: post.id },
      cookie: await sessionCookie(supporter.id),
    });
    const body = (await response.json()) as {
      files: { fileId: string | null; role: string; label: string; unlocked: boolean; gate: { tierIds: string[] } | null }[];
    };
    expect(body.files.map((file) => [file.role, file.label, file.unlocked, file.gate?.tierIds ?? null])).toEqual([
      ["main", "", true, null],
      ["variant", "Maxis Match", true, null],
      ["variant", "Alpha", true, null],
      ["optional", "Accessories", false, [TIER_3]],
      ["translation", "Deutsch", true, null],
    ]);
    const guest = (await (await callRoute(postApiRoute, { path: `/api/library/posts/${post.id}`, params: { id: post.id } })).json()) as typeof body;
    expect(guest.files.every((file) => !file.unlocked)).toBe(true);
  });
});

describe("the post page", () => {
  it("shows the files by role, variants as pick one, the add-on's own access line, a download form per file", async () => {
    const response = await callRoute(postPageRoute, { path: `/library/${post.id}`, params: { postId: post.id }, cookie: await sessionCookie(supporter.id) });
    const data = (await response.json()) as { post: LibraryPost; files: FileView[]; tiers: ApiTier[] };
    const html = renderToStaticMarkup(
      createElement(VersionFiles, { post: data.post, files: data.files, tiers: data.tiers, back: `/library/${post.id}`, onDownload: () => undefined }),
    );
    expect(html).toContain("<h3>Main file</h3>");
    expect(html).toContain("<h3>Variants (pick one)</h3>");
    expect(html).toContain("<h3>Optional add-ons</h3>");
    expect(html).toContain("<h3>Translations</h3>");
    expect(html).toContain("Unlocks with Tier 3");
    expect(html).toContain(`<input type="hidden" name="fileId" value="${files.alpha}"/>`);
    // The Tier 2 supporter has no download form for the Tier 3 add-on.
    expect(html).not.toContain(`value="${files.addon}"`);
    expect(html.match(/data-testid="file-locked"/g)).toHaveLength(1);
  });

  it("is a whole page with a file of each role and the preview tags a shared link needs, for a guest and a supporter", async () => {
    const meta = (html: string, key: string) => new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)"`).exec(html)?.[1] ?? null;
    for (const cookie of [undefined, await sessionCookie(supporter.id)]) {
      const response = await requestDocument({ path: `/library/${post.id}`, cookie });
      expect(response.status).toBe(200);
      const html = await response.text();
      for (const heading of ["Main file", "Variants (pick one)", "Optional add-ons", "Translations"]) expect(html).toContain(`<h3>${heading}</h3>`);
      for (const label of ["Maxis Match", "Alpha", "Accessories", "Deutsch"]) expect(html).toContain(label);
      expect(meta(html, "og:title")).toBe("Variant Hair");
      expect(meta(html, "og:description")).toBe("Unlocks with Tier 2 or Tier 3");
      expect(meta(html, "twitter:title")).toBe("Variant Hair");
    }
  });
});

describe("a file's download without JavaScript", () => {
  it("asks for the terms first and then downloads that file, not the main one", async () => {
    const newcomer = await createTestUser({ currentTierId: TIER_3 });
    const cookie = await sessionCookie(newcomer.id);
    const back = `/library/${post.id}`;
    const asked = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      cookie,
      form: { intent: "download", postId: post.id, fileId: files.alpha, back },
    });
    expect(asked.status).toBe(302);
    const terms = asked.headers.get("Location")!;
    expect(terms).toBe(`${back}?terms=${post.id}&file=${files.alpha}`);
    const page = (await (await callRoute(postPageRoute, { path: terms, params: { postId: post.id }, cookie })).json()) as {
      termsPostId: string;
      termsFileId: string;
    };
    expect(page).toMatchObject({ termsPostId: post.id, termsFileId: files.alpha });
    // The popup's "I Accept" form posts the file with the acceptance.
    const accepted = await callRoute(libraryRoute, {
      method: "POST",
      path: "/library",
      cookie,
      form: { intent: "download", postId: post.id, fileId: page.termsFileId, acceptTos: "true", back },
    });
    expect(accepted.status).toBe(302);
    expect(accepted.headers.get("Location")).toBe(`/api/download/${post.id}?file=${files.alpha}`);
  });
});

describe("the library manifest", () => {
  it("lists the version's files per entry with the account's access, and each address serves its file", async () => {
    const response = await callRoute(manifestRoute, { path: "/api/library/manifest", cookie: await sessionCookie(supporter.id) });
    expect(response.status).toBe(200);
    const entry = ((await response.json()) as LibraryManifest).posts.find((item) => item.postId === post.id)!;
    expect(entry.files.map((file) => [file.role, file.label, file.unlocked, file.url !== null])).toEqual([
      ["main", "", true, true],
      ["variant", "Maxis Match", true, true],
      ["variant", "Alpha", true, true],
      ["optional", "Accessories", false, false],
      ["translation", "Deutsch", true, true],
    ]);
    const alpha = entry.files.find((file) => file.label === "Alpha")!;
    expect(alpha.sha256).toMatch(/^[0-9a-f]{64}$/);
    const address = new URL(alpha.url!);
    const served = await callRoute(filesRoute, { path: `${address.pathname}${address.search}`, params: { postId: post.id } });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes.alpha)).toBe(true);
    // The address names its file: changing it breaks the signature.
    address.searchParams.set("file", files.addon);
    expect((await callRoute(filesRoute, { path: `${address.pathname}${address.search}`, params: { postId: post.id } })).status).toBe(403);
  });
});

describe("Verify a file", () => {
  it("knows each file of a version, named with its version and label", async () => {
    const response = await callRoute(versionsRoute, { path: `/library/${post.id}/versions`, params: { postId: post.id } });
    const { versions } = (await response.json()) as { versions: KnownVersion[] };
    expect(verdictFor(sha256(bytes.addon), versions)).toEqual({ kind: "genuine", label: "V1.0 · Accessories" });
    expect(verdictFor(sha256(bytes.alpha), versions)).toEqual({ kind: "genuine", label: "V1.0 · Alpha" });
    expect(verdictFor(sha256(fileBytes(10, 99)), versions)).toEqual({ kind: "none" });
  });
});

describe("Download all updates", () => {
  it("fetches the variant the user chose last time, in the new version", async () => {
    // topSupporter's last variant download was Alpha (above); a new version comes with both variants again.
    const store = await storage();
    const newBytes = { main: fileBytes(2000, 51), maxis: fileBytes(2100, 52), alpha: fileBytes(2200, 53) };
    for (const [name, content] of Object.entries(newBytes)) await store.put(`posts/${post.id}/v11-${name}.package`, content);
    const v11 = await db.postVersion.create({
      data: { postId: post.id, label: "V1.1", storageKey: `posts/${post.id}/v11-main.package`, fileName: "v11-main.package", size: 2000n },
    });
    await db.post.update({
      where: { id: post.id },
      data: { currentVersionId: v11.id, version: "V1.1", driveFileId: v11.storageKey, fileName: v11.fileName, fileSize: v11.size },
    });
    const newAlpha = await db.versionFile.create({
      data: {
        versionId: v11.id,
        role: "VARIANT",
        label: "Alpha",
        position: 1,
        storageKey: `posts/${post.id}/v11-alpha.package`,
        fileName: "v11-alpha.package",
        size: 2200n,
        sha256: "a".repeat(64),
        contentHash: "a".repeat(64),
      },
    });
    await db.versionFile.create({
      data: {
        versionId: v11.id,
        role: "VARIANT",
        label: "Maxis Match",
        position: 0,
        storageKey: `posts/${post.id}/v11-maxis.package`,
        fileName: "v11-maxis.package",
        size: 2100n,
        sha256: "b".repeat(64),
        contentHash: "b".repeat(64),
      },
    });
    const cookie = await sessionCookie(topSupporter.id);
    const page = (await (await callRoute(updatesRoute, { path: "/account/updates", cookie })).json()) as {
      updates: { postId: string; fromVersion: string; toVersion: string; variant: { fileId: string; label: string } | null }[];
    };
    expect(page.updates.find((update) => update.postId === post.id)).toMatchObject({
      fromVersion: "V1.0",
      toVersion: "V1.1",
      variant: { fileId: newAlpha.id, label: "Alpha" },
    });
    // What the run fetches: /api/download/{postId}?file={that variant}.
    const fetched = await download(topSupporter, newAlpha.id);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(newBytes.alpha)).toBe(true);
    // A user who never picked a variant gets the main file.
    const mainOnly = await createTestUser({ currentTierId: TIER_2, tosAccepted: true });
    await recordDownload(mainOnly.id, post.id, "V1.0", new Date(), "current-tier", versionId);
    const theirs = (await (await callRoute(updatesRoute, { path: "/account/updates", cookie: await sessionCookie(mainOnly.id) })).json()) as typeof page;
    expect(theirs.updates.find((update) => update.postId === post.id)).toMatchObject({ toVersion: "V1.1", variant: null });
  });
});
