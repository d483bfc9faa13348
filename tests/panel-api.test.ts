// Home panels through the real `/api` routes against PostgreSQL: CRUD, ordering, admin checks,
// image upload (validated by content) and how the images are served and cached.
import sharp from "sharp";
import { db } from "~/db.server";
import * as panelsRoute from "~/routes/api.panels";
import * as panelRoute from "~/routes/api.panels.$id";
import * as expandedRoute from "~/routes/api.panels.$id.expanded";
import * as uploadRoute from "~/routes/api.panelsupload.$id.image";
import * as imageRoute from "~/routes/panel_images.$file";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

type ApiPanel = { _id: string; title: string; description: string | null; link: string; index: number; image: boolean; imageUrl: string | null };

let adminCookie: string;
let userCookie: string;
let adminId: string;

beforeAll(async () => {
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  adminId = admin.id;
  adminCookie = await sessionCookie(admin.id);
  userCookie = await sessionCookie((await createTestUser()).id);
});

beforeEach(async () => {
  await db.panel.deleteMany({});
});

async function createViaApi(body: unknown, cookie = adminCookie) {
  return callRoute(panelsRoute, { method: "POST", path: "/api/panels", json: body, cookie });
}

async function imageForm(bytes: Buffer, fileName: string, type: string): Promise<FormData> {
  const form = new FormData();
  form.append("image", new Blob([new Uint8Array(bytes)], { type }), fileName);
  return form;
}

const png = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: "#3366ff" } })
    .png()
    .toBuffer();
const jpeg = () =>
  sharp({ create: { width: 50, height: 20, channels: 3, background: "#ff6633" } })
    .jpeg()
    .toBuffer();

describe("/api/panels", () => {
  it("creates, lists in ascending index, updates and deletes a panel, each audited", async () => {
    const created = await createViaApi({ title: "  Second ", link: "https://example.com/b", index: 2, description: "Desc" });
    expect(created.status).toBe(201);
    const body = await readJsonBody<{ message: string; panel: ApiPanel }>(created);
    expect(body.message).toBe("Panel created successfully.");
    expect(body.panel).toMatchObject({ title: "Second", link: "https://example.com/b", index: 2, description: "Desc", image: false, imageUrl: null });
    await createViaApi({ title: "First", link: "/library", index: 0 });
    await createViaApi({ title: "Third", link: "https://example.com/c", index: 5 });

    const list = await readJsonBody<ApiPanel[]>(await callRoute(panelsRoute, { path: "/api/panels" }));
    expect(list.map((panel) => panel.title)).toEqual(["First", "Second", "Third"]);

    const id = body.panel._id;
    const updated = await callRoute(panelRoute, {
      method: "PUT",
      path: `/api/panels/${id}`,
      params: { id },
      json: { title: "Last now", link: "https://example.com/z", index: 9 },
      cookie: adminCookie,
    });
    expect(updated.status).toBe(200);
    expect((await readJsonBody<{ message: string }>(updated)).message).toBe("Panel updated successfully.");
    const reordered = await readJsonBody<ApiPanel[]>(await callRoute(panelsRoute, { path: "/api/panels" }));
    expect(reordered.map((panel) => panel.title)).toEqual(["First", "Third", "Last now"]);
    // Description was not sent, so it is kept.
    expect(reordered[2]!.description).toBe("Desc");

    const deleted = await callRoute(panelRoute, { method: "DELETE", path: `/api/panels/${id}`, params: { id }, cookie: adminCookie });
    expect(deleted.status).toBe(200);
    expect((await readJsonBody<{ message: string }>(deleted)).message).toBe("Panel deleted successfully.");
    expect(await db.panel.count()).toBe(2);

    const actions = (await db.auditEntry.findMany({ where: { targetId: id }, orderBy: { createdAt: "asc" } })).map((entry) => entry.action);
    expect(actions).toEqual(["panel.create", "panel.update", "panel.delete"]);
    expect((await db.auditEntry.findFirst({ where: { targetId: id } }))?.actorId).toBe(adminId);
  });

  it("puts a panel created without an index after the others", async () => {
    const first = await readJsonBody<{ panel: ApiPanel }>(await createViaApi({ title: "A", link: "/a" }));
    expect(first.panel.index).toBe(0);
    await createViaApi({ title: "B", link: "/b", index: 7 });
    const next = await readJsonBody<{ panel: ApiPanel }>(await createViaApi({ title: "C", link: "/c" }));
    expect(next.panel.index).toBe(8);
  });

  it("refuses a blank title or link with the spec's message, and a negative index", async () => {
    for (const body of [{ title: "   ", link: "https://x.test" }, { title: "T", link: "" }, { link: "https://x.test" }]) {
      const response = await createViaApi(body);
      expect(response.status).toBe(400);
      expect(await readJsonBody(response)).toEqual({ error: "Title and Link are required." });
    }
    const negative = await createViaApi({ title: "T", link: "https://x.test", index: -1 });
    expect(negative.status).toBe(400);
    expect((await readJsonBody<{ error: string }>(negative)).error).toBe("Please enter a valid index.");
    const script = await createViaApi({ title: "T", link: "javascript:alert(1)" });
    expect(script.status).toBe(400);
    expect(await db.panel.count()).toBe(0);
  });

  it("refuses guests (401) and non-admins (403) on the server", async () => {
    expect((await createViaApi({ title: "T", link: "https://x.test" }, "")).status).toBe(401);
    const forbidden = await createViaApi({ title: "T", link: "https://x.test" }, userCookie);
    expect(forbidden.status).toBe(403);
    expect(await readJsonBody(forbidden)).toEqual({ error: "You need to be logged in as an admin to perform this action." });
    const panel = await db.panel.create({ data: { title: "Keep", link: "https://x.test" } });
    const put = await callRoute(panelRoute, {
      method: "PUT",
      path: `/api/panels/${panel.id}`,
      params: { id: panel.id },
      json: { title: "X", link: "/x" },
      cookie: userCookie,
    });
    expect(put.status).toBe(403);
    const del = await callRoute(panelRoute, { method: "DELETE", path: `/api/panels/${panel.id}`, params: { id: panel.id }, cookie: userCookie });
    expect(del.status).toBe(403);
    const upload = await callRoute(uploadRoute, {
      method: "POST",
      path: `/api/panelsupload/${panel.id}/image`,
      params: { id: panel.id },
      form: await imageForm(await png(), "a.png", "image/png"),
      cookie: userCookie,
    });
    expect(upload.status).toBe(403);
    expect(await db.panel.findUnique({ where: { id: panel.id } })).toMatchObject({ title: "Keep", imageVersion: null });
  });

  it("answers 404 for unknown and malformed ids", async () => {
    const unknown = await callRoute(panelRoute, { method: "DELETE", path: "/api/panels/nope", params: { id: "nope" }, cookie: adminCookie });
    expect(unknown.status).toBe(404);
    expect(await readJsonBody(unknown)).toEqual({ error: "Panel not found." });
    const malformed = await callRoute(expandedRoute, { path: "/api/panels/../x/expanded", params: { id: "../x" } });
    expect(malformed.status).toBe(404);
  });
});

describe("panel images", () => {
  it("uploads a real PNG and JPEG, re-encodes them to JPEG and serves them with versioned caching", async () => {
    const panel = await db.panel.create({ data: { title: "Pic", link: "https://x.test" } });
    const upload = async (bytes: Buffer, name: string, type: string) =>
      callRoute(uploadRoute, {
        method: "POST",
        path: `/api/panelsupload/${panel.id}/image`,
        params: { id: panel.id },
        form: await imageForm(bytes, name, type),
        cookie: adminCookie,
      });

    const first = await upload(await png(), "front.png", "image/png");
    expect(first.status).toBe(200);
    const firstBody = await readJsonBody<{ message: string; panel: ApiPanel }>(first);
    expect(firstBody.message).toBe("Panel image uploaded successfully.");
    expect(firstBody.panel.image).toBe(true);
    const firstUrl = firstBody.panel.imageUrl!;
    expect(firstUrl).toMatch(new RegExp(`^/panel_images/${panel.id}\\.jpg\\?v=[0-9a-f]+$`));

    const served = await callRoute(imageRoute, { path: firstUrl, params: { file: `${panel.id}.jpg` } });
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("image/jpeg");
    expect(served.headers.get("Cache-Control")).toContain("immutable");
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: "jpeg", width: 40, height: 30 });

    const second = await upload(await jpeg(), "front.jpeg", "image/jpeg");
    expect(second.status).toBe(200);
    const secondUrl = (await readJsonBody<{ panel: ApiPanel }>(second)).panel.imageUrl!;
    expect(secondUrl).not.toBe(firstUrl);
    const servedSecond = await callRoute(imageRoute, { path: secondUrl, params: { file: `${panel.id}.jpg` } });
    expect((await sharp(Buffer.from(await servedSecond.arrayBuffer())).metadata()).width).toBe(50);
    // The old address is no longer the current version: caches must revalidate it.
    const stale = await callRoute(imageRoute, { path: firstUrl, params: { file: `${panel.id}.jpg` } });
    expect(stale.headers.get("Cache-Control")).toBe("public, max-age=0, must-revalidate");

    const expanded = await readJsonBody<ApiPanel & { imageVersion: string }>(
      await callRoute(expandedRoute, { path: `/api/panels/${panel.id}/expanded`, params: { id: panel.id } }),
    );
    expect(expanded).toMatchObject({ _id: panel.id, image: true, imageUrl: secondUrl });
    expect(await db.auditEntry.count({ where: { targetId: panel.id, action: "panel.image" } })).toBe(2);
  });

  it("refuses a text file renamed .png and keeps the panel unchanged", async () => {
    const panel = await db.panel.create({ data: { title: "Pic", link: "https://x.test" } });
    const response = await callRoute(uploadRoute, {
      method: "POST",
      path: `/api/panelsupload/${panel.id}/image`,
      params: { id: panel.id },
      form: await imageForm(Buffer.from("this is not an image at all\n"), "evil.png", "image/png"),
      cookie: adminCookie,
    });
    expect(response.status).toBe(400);
    expect((await readJsonBody<{ error: string }>(response)).error).toBe("The file is not a valid image.");
    expect((await db.panel.findUniqueOrThrow({ where: { id: panel.id } })).imageVersion).toBeNull();
    const served = await callRoute(imageRoute, { path: `/panel_images/${panel.id}.jpg`, params: { file: `${panel.id}.jpg` } });
    expect(served.status).toBe(404);
  });

  it("refuses an upload without the image field, and deleting a panel removes its image", async () => {
    const panel = await db.panel.create({ data: { title: "Pic", link: "https://x.test" } });
    const empty = new FormData();
    empty.append("other", "x");
    const missing = await callRoute(uploadRoute, {
      method: "POST",
      path: `/api/panelsupload/${panel.id}/image`,
      params: { id: panel.id },
      form: empty,
      cookie: adminCookie,
    });
    expect(missing.status).toBe(400);

    await callRoute(uploadRoute, {
      method: "POST",
      path: `/api/panelsupload/${panel.id}/image`,
      params: { id: panel.id },
      form: await imageForm(await png(), "a.png", "image/png"),
      cookie: adminCookie,
    });
    await callRoute(panelRoute, { method: "DELETE", path: `/api/panels/${panel.id}`, params: { id: panel.id }, cookie: adminCookie });
    const served = await callRoute(imageRoute, { path: `/panel_images/${panel.id}.jpg`, params: { file: `${panel.id}.jpg` } });
    expect(served.status).toBe(404);
    const { storage } = await import("~/integrations/storage.server");
    expect(await (await storage()).stat(`panels/${panel.id}.jpg`)).toBeNull();
  });
});
