// The home page's loader and form action (the no-JavaScript path): admin checks on the server,
// a multipart form with the fields and the image together, and the spec's messages.
import sharp from "sharp";
import { db } from "~/db.server";
import * as home from "~/routes/_index";
import { callRoute, createTestUser, sessionCookie } from "./helpers";

function panelForm(fields: Record<string, string>, image?: { bytes: Buffer; name: string; type: string }): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("image", image ? new Blob([new Uint8Array(image.bytes)], { type: image.type }) : new Blob([]), image?.name ?? "");
  return form;
}

let adminCookie: string;
let userCookie: string;

beforeAll(async () => {
  adminCookie = await sessionCookie((await createTestUser({ isAdmin: true })).id);
  userCookie = await sessionCookie((await createTestUser()).id);
});

beforeEach(async () => {
  await db.panel.deleteMany({});
});

describe("home action", () => {
  it("creates a panel with its image from one multipart form and redirects with the success toast", async () => {
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#123456" } })
      .png()
      .toBuffer();
    const response = await callRoute(home, {
      method: "POST",
      path: "/?index",
      form: panelForm(
        { intent: "save", title: "Shop", link: "https://shop.test", description: "", index: "4" },
        { bytes: png, name: "a.png", type: "image/png" },
      ),
      cookie: adminCookie,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.get("Set-Cookie")).toBeTruthy();
    const panel = await db.panel.findFirstOrThrow();
    expect(panel).toMatchObject({ title: "Shop", link: "https://shop.test", description: null, index: 4 });
    expect(panel.imageVersion).toMatch(/^[0-9a-f]{16}$/);
  });

  it("re-renders with 'Title and Link are required.' and keeps what was typed", async () => {
    const response = await callRoute(home, {
      method: "POST",
      path: "/?index",
      form: panelForm({ intent: "save", title: "Kept", link: " " }),
      cookie: adminCookie,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "Title and Link are required.", values: { title: "Kept" } });
    expect(await db.panel.count()).toBe(0);
  });

  it("refuses an image that is not one, by content", async () => {
    const response = await callRoute(home, {
      method: "POST",
      path: "/?index",
      form: panelForm({ intent: "save", title: "T", link: "/x" }, { bytes: Buffer.from("hello"), name: "fake.jpg", type: "image/jpeg" }),
      cookie: adminCookie,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("The file is not a valid image.");
    expect(await db.panel.count()).toBe(0);
  });

  it("sends non-admins away without changing anything", async () => {
    const panel = await db.panel.create({ data: { title: "Stay", link: "/x" } });
    for (const cookie of ["", userCookie]) {
      const create = await callRoute(home, { method: "POST", path: "/?index", form: panelForm({ intent: "save", title: "T", link: "/x" }), cookie });
      expect(create.status).toBe(302);
      const remove = await callRoute(home, { method: "POST", path: "/?index", form: { intent: "delete", id: panel.id }, cookie });
      expect(remove.status).toBe(302);
    }
    expect(await db.panel.findMany()).toHaveLength(1);
  });

  it("updates and deletes a panel", async () => {
    const panel = await db.panel.create({ data: { title: "Old", link: "/x", description: "d", index: 2 } });
    await callRoute(home, {
      method: "POST",
      path: "/?index",
      form: panelForm({ intent: "save", id: panel.id, title: "New", link: "/y", description: "", index: "" }),
      cookie: adminCookie,
    });
    expect(await db.panel.findUniqueOrThrow({ where: { id: panel.id } })).toMatchObject({ title: "New", link: "/y", description: null, index: 2 });
    const removed = await callRoute(home, { method: "POST", path: "/?index", form: { intent: "delete", id: panel.id }, cookie: adminCookie });
    expect(removed.status).toBe(302);
    expect(await db.panel.count()).toBe(0);
  });
});

describe("home loader", () => {
  it("lists panels by ascending index and gives the admin view only to admins", async () => {
    await db.panel.createMany({
      data: [
        { title: "B", link: "/b", index: 2 },
        { title: "A", link: "/a", index: 0 },
        { title: "C", link: "/c", index: 7 },
      ],
    });
    const guest = (await (await callRoute(home, { path: "/" })).json()) as { panels: { title: string }[]; isAdmin: boolean; adminView: boolean };
    expect(guest.panels.map((panel) => panel.title)).toEqual(["A", "B", "C"]);
    expect(guest).toMatchObject({ isAdmin: false, adminView: false });
    expect(await (await callRoute(home, { path: "/", cookie: userCookie })).json()).toMatchObject({ isAdmin: false, adminView: false });
    expect(await (await callRoute(home, { path: "/", cookie: adminCookie })).json()).toMatchObject({ isAdmin: true, adminView: true });
    expect(await (await callRoute(home, { path: "/?view=user", cookie: adminCookie })).json()).toMatchObject({ isAdmin: true, adminView: false });
  });
});
