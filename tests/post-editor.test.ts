// The admin post table (/admin/posts) and a post's editor (/admin/posts/{postId}) without a
// browser: what the table shows for its filters and sorts, the editor's one Save writing only
// what the admin edited, Publish now read at once, and delete confirmed on a page.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { getToast } from "~/toast.server";
import * as editor from "~/routes/admin_.posts_.$postId";
import * as libraryRoute from "~/routes/library";
import * as startUpload from "~/routes/api.uploads";
import * as completeUpload from "~/routes/api.uploads.$uploadId.complete";
import * as uploadPart from "~/routes/api.uploads.$uploadId.parts.$part";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { formFieldsOf, requestDocument } from "./documents";
import { createPost, createTiers, TIER_1, TIER_2 } from "./library-fixtures";

let adminCookie: string;

beforeAll(async () => {
  await createTiers();
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

async function toastOf(response: Response) {
  const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const { toast } = await getToast(new Request("http://localhost:3999/admin/posts", { headers: { Cookie: cookie } }));
  return toast;
}

async function page(path: string): Promise<string> {
  const response = await requestDocument({ path, cookie: adminCookie });
  expect(response.status, path).toBe(200);
  // React's markers between adjacent texts are not what anyone reads.
  return (await response.text()).replaceAll("<!-- -->", "");
}

/** The table's rows as the admin reads them: title and status cell, in order. */
function tableRows(html: string): { title: string; status: string }[] {
  return [...html.matchAll(/<tr data-testid="post-table-row"[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row]) => {
    const cells = [...row!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell!.replace(/<[^>]+>/g, "").replace(/&#x27;/g, "'"));
    return { title: /<a [^>]*>([^<]*)<\/a>/.exec(row!)?.[1] ?? "", status: cells[1] ?? "" };
  });
}

function postTo(postId: string, fields: URLSearchParams | Record<string, string>) {
  const body = fields instanceof URLSearchParams ? fields : new URLSearchParams(fields);
  return callRoute(editor, {
    method: "POST",
    path: `/admin/posts/${postId}`,
    params: { postId },
    body: body.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    cookie: adminCookie,
  });
}

describe("the post table", () => {
  it("shows each post's state and warnings, filters by status and search, and sorts by a column both ways", async () => {
    const published = await createPost({ title: "Table bench published", tiers: [TIER_1] });
    const draft = await createPost({ title: "Table bench draft", tiers: [TIER_1], fileSize: null });
    const disabled = await createPost({ title: "Table bench disabled", tiers: [TIER_1], enabled: false });
    const noTier = await createPost({ title: "Table bench no tier", tiers: [] });
    const scheduled = await createPost({ title: "Table bench scheduled", tiers: [TIER_2] });
    await db.post.update({ where: { id: scheduled.id }, data: { publishAt: new Date(Date.now() + 3 * 24 * 3600_000) } });
    // Downloads: three of the published post, one of the scheduled one.
    const fan = await createTestUser({});
    for (let count = 0; count < 3; count++) await db.download.create({ data: { userId: fan.id, postId: published.id, version: "V1.0" } });
    await db.download.create({ data: { userId: fan.id, postId: scheduled.id, version: "V1.0" } });

    const all = tableRows(await page("/admin/posts?search=Table%20bench&sort=title"));
    expect(all.map((row) => row.title)).toEqual([
      "Table bench disabled",
      "Table bench draft",
      "Table bench no tier",
      "Table bench published",
      "Table bench scheduled",
    ]);
    expect(all.find((row) => row.title === "Table bench disabled")?.status).toBe("Disabled");
    expect(all.find((row) => row.title === "Table bench draft")?.status).toBe("Draft");
    expect(all.find((row) => row.title === "Table bench published")?.status).toBe("Published");
    expect(all.find((row) => row.title === "Table bench no tier")?.status).toBe("PublishedPaid without a tier");
    expect(all.find((row) => row.title === "Table bench scheduled")?.status).toMatch(/^Scheduled for /);

    const statusOnly = async (status: string) => tableRows(await page(`/admin/posts?search=Table%20bench&status=${status}`)).map((row) => row.title);
    expect(await statusOnly("draft")).toEqual([draft.title]);
    expect(await statusOnly("disabled")).toEqual([disabled.title]);
    expect(await statusOnly("scheduled")).toEqual([scheduled.title]);
    expect(await statusOnly("paid-no-tier")).toEqual([noTier.title]);
    expect((await statusOnly("published")).sort()).toEqual([noTier.title, published.title].sort());

    // Most downloaded first, then the other way round; the header links keep the filter.
    const byDownloads = await page("/admin/posts?search=Table%20bench&sort=downloads&dir=desc");
    expect(
      tableRows(byDownloads)
        .slice(0, 2)
        .map((row) => row.title),
    ).toEqual([published.title, scheduled.title]);
    expect(byDownloads).toContain('aria-sort="descending"');
    expect(byDownloads).toContain('href="/admin/posts?search=Table+bench&amp;sort=downloads"');
    const fewest = tableRows(await page("/admin/posts?search=Table%20bench&sort=downloads"));
    expect(fewest.at(-1)?.title).toBe(published.title);
    // Each title opens the post's editor.
    expect(byDownloads).toContain(`href="/admin/posts/${published.id}"`);
  });

  it("pages 25 rows at a time, with links that keep the filter", async () => {
    for (let count = 0; count < 27; count++) await createPost({ title: `Paging bench ${String(count).padStart(2, "0")}`, tiers: [TIER_1] });
    const first = await page("/admin/posts?search=Paging%20bench&sort=title");
    expect(tableRows(first)).toHaveLength(25);
    expect(first).toContain("Page 1 of 2");
    expect(first).toContain('href="/admin/posts?search=Paging+bench&amp;sort=title&amp;page=2"');
    const second = tableRows(await page("/admin/posts?search=Paging%20bench&sort=title&page=2"));
    expect(second.map((row) => row.title)).toEqual(["Paging bench 25", "Paging bench 26"]);
  });

  it("is for admins only", async () => {
    const fan = await createTestUser({});
    const response = await requestDocument({ path: "/admin/posts", cookie: await sessionCookie(fan.id) });
    expect([response.status, response.headers.get("Location")]).toEqual([302, "/"]);
  });
});

describe("the post's editor: one Save changes only what the admin edited", () => {
  it("after a new version v2 is uploaded through the API, saving the details drawn before keeps v2", async () => {
    const target = await createPost({ title: "Editor stale bench", tiers: [TIER_1], version: "V1.0" });
    const drawn = formFieldsOf(await page(`/admin/posts/${target.id}`), { intent: "save" });
    // The version label is not a details field.
    expect(drawn.has("version")).toBe(false);

    // v2 arrives as a resumable upload through /api/uploads (what the editor's script does).
    const bytes = Buffer.from("second version bytes");
    const started = await callRoute(startUpload, {
      method: "POST",
      path: "/api/uploads",
      json: { postId: target.id, fileName: "editor-v2.zip", size: bytes.length, label: "v2", notes: "" },
      cookie: adminCookie,
    });
    expect(started.status).toBe(201);
    const upload = (await started.json()) as { id: string; parts: { partNumber: number; url: string }[] };
    const part = await callRoute(uploadPart, {
      method: "PUT",
      path: `/api/uploads/${upload.id}/parts/1`,
      params: { uploadId: upload.id, part: "1" },
      body: bytes,
      headers: { "Content-Type": "application/octet-stream" },
      cookie: adminCookie,
    });
    expect(part.status).toBe(200);
    const done = await callRoute(completeUpload, {
      method: "POST",
      path: `/api/uploads/${upload.id}/complete`,
      params: { uploadId: upload.id },
      cookie: adminCookie,
    });
    expect(done.status).toBe(200);
    expect((await db.post.findUniqueOrThrow({ where: { id: target.id } })).version).toBe("v2");

    // The admin ticks Tier 2 instead of Tier 1 on the page drawn before and presses Save.
    drawn.delete("tiers");
    drawn.append("tiers", TIER_2);
    const saved = await postTo(target.id, drawn);
    expect(saved.headers.get("Location")).toBe(`/admin/posts/${target.id}`);
    expect(await toastOf(saved)).toMatchObject({ type: "success", message: "Post updated." });
    const row = await db.post.findUniqueOrThrow({ where: { id: target.id }, include: { tiers: true, currentVersion: true } });
    expect(row.tiers.map((tier) => `${tier.kind}:${tier.tierId}`)).toEqual([`CURRENT:${TIER_2}`]);
    expect(row).toMatchObject({ version: "v2", fileName: "editor-v2.zip" });
    expect(row.currentVersion).toMatchObject({ label: "v2" });
    expect(await page(`/admin/posts/${target.id}`)).toContain("v2 · ");
  });

  it("a Save with nothing edited writes nothing; tags and requirements are saved with the same Save", async () => {
    const target = await createPost({ title: "Editor untouched bench", tiers: [TIER_1], firstTiers: [TIER_1] });
    const required = await createPost({ title: "Editor required bench", tiers: [TIER_1] });
    await db.tag.upsert({ where: { slug: "editor-bench" }, create: { slug: "editor-bench", name: "Editor bench" }, update: {} });
    const before = await db.post.findUniqueOrThrow({ where: { id: target.id }, include: { tiers: { orderBy: { kind: "asc" } } } });
    const auditsBefore = await db.auditEntry.count({ where: { targetId: target.id } });
    const drawn = formFieldsOf(await page(`/admin/posts/${target.id}`), { intent: "save" });
    await postTo(target.id, drawn);
    const unchanged = await db.post.findUniqueOrThrow({ where: { id: target.id }, include: { tiers: { orderBy: { kind: "asc" } } } });
    const bookkeeping = { updatedAt: null, currentVersionId: null };
    expect({ ...unchanged, ...bookkeeping }).toEqual({ ...before, ...bookkeeping });
    expect(await db.postTag.count({ where: { postId: target.id } })).toBe(0);
    expect(await db.postRequirement.count({ where: { postId: target.id } })).toBe(0);

    drawn.set("title", "Editor touched bench");
    drawn.append("tags", "editor-bench");
    drawn.set("req_post_0", required.id);
    drawn.set("req_min_0", "V1");
    await postTo(target.id, drawn);
    const edited = await db.post.findUniqueOrThrow({ where: { id: target.id }, include: { tags: { include: { tag: true } }, requirements: true } });
    expect(edited.title).toBe("Editor touched bench");
    expect(edited.lastUpdated).toEqual(before.lastUpdated);
    expect(edited.tags.map((link) => link.tag.slug)).toEqual(["editor-bench"]);
    expect(edited.requirements.map((requirement) => [requirement.requiredPostId, requirement.minVersion])).toEqual([[required.id, "V1"]]);
    expect(await db.auditEntry.count({ where: { targetId: target.id } })).toBeGreaterThan(auditsBefore);
  });
});

describe("the post's editor: state and actions", () => {
  it("Publish now reads Published on the very next page (not a minute later)", async () => {
    const target = await createPost({ title: "Editor publish bench", tiers: [TIER_1] });
    await db.post.update({ where: { id: target.id }, data: { publishAt: new Date(Date.now() + 24 * 3600_000) } });
    const scheduledPage = await page(`/admin/posts/${target.id}`);
    expect(scheduledPage).toMatch(/data-testid="post-state"[^>]*>Scheduled for /);
    expect(scheduledPage).toContain("only admins see it until then.");

    const published = await postTo(target.id, { intent: "publish-now" });
    expect(published.headers.get("Location")).toBe(`/admin/posts/${target.id}`);
    expect(await toastOf(published)).toMatchObject({ type: "success" });
    const after = await page(`/admin/posts/${target.id}`);
    expect(after).toMatch(/data-testid="post-state"[^>]*>Published</);
    expect(after).toMatch(/data-testid="release-publication"[^>]*>Published\.</);
    expect(after).not.toContain("only admins see it until then");
  });

  it("adds a variant to the current version from the editor, without JavaScript, and comes back to the editor", async () => {
    const target = await createPost({ title: "Editor files bench", tiers: [TIER_1] });
    const version = await db.postVersion.create({
      data: { postId: target.id, label: "V1.0", storageKey: target.driveFileId!, fileName: target.fileName!, size: target.fileSize! },
    });
    await db.post.update({ where: { id: target.id }, data: { currentVersionId: version.id } });
    const editor = await page(`/admin/posts/${target.id}`);
    expect(editor).toContain("Add a file to this version");
    const action = /action="(\/library\?intent=upload-version-file[^"]*)"/.exec(editor)?.[1]?.replaceAll("&amp;", "&");
    expect(action).toBeDefined();
    const form = new FormData();
    form.append("role", "variant");
    form.append("label", "Alpha");
    form.append("gateTierIds", "");
    form.append("file", new Blob([new TextEncoder().encode("alpha bytes")]), "files-alpha.zip");
    const response = await callRoute(libraryRoute, { method: "POST", path: action!, cookie: adminCookie, form });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/admin/posts/${target.id}`);
    const added = await db.versionFile.findFirstOrThrow({ where: { versionId: version.id } });
    expect({ role: added.role, label: added.label }).toEqual({ role: "VARIANT", label: "Alpha" });
  });

  it("Disable and Enable come back to the same post", async () => {
    const target = await createPost({ title: "Editor toggle bench", tiers: [TIER_1] });
    const disabled = await postTo(target.id, { intent: "toggle", enabled: "false" });
    expect(disabled.headers.get("Location")).toBe(`/admin/posts/${target.id}`);
    expect(await page(`/admin/posts/${target.id}`)).toMatch(/data-testid="post-state"[^>]*>Disabled</);
  });

  it("without JavaScript, Delete asks on a page first; confirming deletes and goes to the table", async () => {
    const target = await createPost({ title: "Editor delete bench", tiers: [TIER_1] });
    const editorPage = await page(`/admin/posts/${target.id}`);
    expect(editorPage).toContain(`href="/admin/posts/${target.id}?delete"`);
    expect(editorPage).not.toContain('data-testid="delete-post-dialog"');
    const confirm = await page(`/admin/posts/${target.id}?delete`);
    expect(confirm).toContain('data-testid="delete-post-dialog"');
    expect(confirm).toContain("Are you sure you want to delete this post?");
    // Nothing is deleted by asking.
    expect(await db.post.count({ where: { id: target.id } })).toBe(1);
    const fields = formFieldsOf(confirm.slice(confirm.indexOf('data-testid="delete-post-dialog"')), {});
    fields.set("intent", "delete");
    const deleted = await postTo(target.id, fields);
    expect(deleted.headers.get("Location")).toBe("/admin/posts");
    expect(await toastOf(deleted)).toMatchObject({ type: "success", message: "Post deleted." });
    expect(await db.post.count({ where: { id: target.id } })).toBe(0);
    expect((await requestDocument({ path: `/admin/posts/${target.id}`, cookie: adminCookie })).status).toBe(404);
  });
});
