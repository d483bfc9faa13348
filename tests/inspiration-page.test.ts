// The /inspiration-vote page's loader and form action (the no-JavaScript path).
import sharp from "sharp";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import * as media from "~/routes/media.$";
import * as page from "~/routes/inspiration-vote";
import { callRoute, createTestUser, sessionCookie } from "./helpers";

let adminCookie: string;
let voterCookie: string;
let panelId: string;

beforeAll(async () => {
  // Migration 0030 holds Tier 2 (paid, voting) already.
  expect(await db.tier.findUnique({ where: { id: "8825009" } })).toMatchObject({ title: "Tier 2", canVote: true });
  adminCookie = await sessionCookie((await createTestUser({ isAdmin: true })).id);
  voterCookie = await sessionCookie((await createTestUser({ currentTierId: "8825009" })).id);
  await db.inspirationConfig.create({ data: { id: 1, votingOpen: true, votingEndTime: new Date(Date.now() + 3_600_000) } });
  panelId = (await db.inspirationPanel.create({ data: { imageUrl: "/media/inspiration/a.jpg", title: "A" } })).id;
});

describe("inspiration page", () => {
  it("likes through a plain form post, then redirects back", async () => {
    const response = await callRoute(page, { method: "POST", path: "/inspiration-vote", form: { intent: "like", panelId, like: "true" }, cookie: voterCookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/inspiration-vote");
    const data = (await (await callRoute(page, { path: "/inspiration-vote", cookie: voterCookie })).json()) as {
      panels: { likes: number; userHasLiked: boolean }[];
      rights: { canLike: boolean };
    };
    expect(data.panels[0]).toMatchObject({ likes: 1, userHasLiked: true });
    expect(data.rights.canLike).toBe(true);
  });

  it("answers a refused like in place when asked for JSON", async () => {
    const response = await callRoute(page, { method: "POST", path: "/inspiration-vote", form: { intent: "like", panelId, like: "true", respond: "json" } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "You must be logged in to like an inspiration." });
  });

  it("refuses admin changes from non-admins on the server", async () => {
    const forms: Record<string, string>[] = [
      { intent: "reset-likes" },
      { intent: "update-config", title: "Hacked", mode: "randomized" },
      { intent: "delete-panel", id: panelId },
    ];
    for (const form of forms) {
      const response = await callRoute(page, { method: "POST", path: "/inspiration-vote", form, cookie: voterCookie });
      expect(response.status).toBe(302);
    }
    expect(await db.inspirationPanel.count()).toBe(1);
    expect(await db.inspirationLike.count()).toBe(1);
    expect((await db.inspirationConfig.findUniqueOrThrow({ where: { id: 1 } })).title).toBe("Inspiration Vote");
  });

  it("answers a refused admin form with its message and values inline, without a toast as well", async () => {
    const response = await callRoute(page, {
      method: "POST",
      path: "/inspiration-vote",
      form: { intent: "create-panel", imageUrl: "", title: "Typed" },
      cookie: adminCookie,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ intent: "create-panel", values: { title: "Typed" } });
    const cookies = response.headers
      .getSetCookie()
      .map((value) => value.split(";")[0]!)
      .join("; ");
    const { getToast } = await import("~/toast.server");
    expect((await getToast(new Request("http://localhost:3999/inspiration-vote", { headers: { Cookie: cookies } }))).toast).toBeUndefined();
  });

  it("lets an admin set the config from the form (time in UTC) and reset likes", async () => {
    const form = new URLSearchParams([
      ["intent", "update-config"],
      ["title", "Winter"],
      ["mode", "randomized"],
      ["votingEndTime", "2030-01-02T03:04"],
      ["votingOpen", "false"],
      ["votingOpen", "true"],
    ]);
    await callRoute(page, {
      method: "POST",
      path: "/inspiration-vote",
      body: form,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      cookie: adminCookie,
    });
    expect(await db.inspirationConfig.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({
      title: "Winter",
      mode: "RANDOMIZED",
      votingOpen: true,
      votingEndTime: new Date("2030-01-02T03:04:00Z"),
    });
    const data = (await (await callRoute(page, { path: "/inspiration-vote", cookie: voterCookie })).json()) as { panels: { likes: number | null }[] };
    expect(data.panels[0]!.likes).toBeNull();
    await callRoute(page, { method: "POST", path: "/inspiration-vote", form: { intent: "reset-likes" }, cookie: adminCookie });
    expect(await db.inspirationLike.count()).toBe(0);
  });

  it("takes a new idea's image as an upload, checked and stored as panel images are, and served from /media", async () => {
    const png = await sharp({ create: { width: 24, height: 12, channels: 3, background: "#345678" } })
      .png()
      .toBuffer();
    const ideaForm = (image: { bytes: Buffer; name: string; type: string }, imageUrl = "") => {
      const form = new FormData();
      for (const [name, value] of Object.entries({ intent: "create-panel", title: "Uploaded idea", imageUrl })) form.append(name, value);
      form.append("image", new Blob([new Uint8Array(image.bytes)], { type: image.type }), image.name);
      return form;
    };
    const created = await callRoute(page, {
      method: "POST",
      path: "/inspiration-vote",
      form: ideaForm({ bytes: png, name: "idea.png", type: "image/png" }),
      cookie: adminCookie,
    });
    expect(created.status).toBe(302);
    const idea = await db.inspirationPanel.findFirstOrThrow({ where: { title: "Uploaded idea" } });
    expect(idea.imageUrl).toMatch(/^\/media\/inspiration\/[0-9a-f]{16}\.jpg$/);
    // Re-encoded to JPEG, as panel images are, and served publicly.
    const key = `images/${idea.imageUrl.slice("/media/".length)}`;
    expect((await (await storage()).stat(key))?.size).toBeGreaterThan(0);
    const served = await callRoute(media, { path: idea.imageUrl, params: { "*": idea.imageUrl.slice("/media/".length) } });
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("image/jpeg");
    expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).format).toBe("jpeg");

    // A file that is no image is refused in place with what was typed, and nothing is created.
    const refused = await callRoute(page, {
      method: "POST",
      path: "/inspiration-vote",
      form: ideaForm({ bytes: Buffer.from("hello"), name: "fake.jpg", type: "image/jpeg" }, "https://example.com/typed.png"),
      cookie: adminCookie,
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      intent: "create-panel",
      error: "The file is not a valid image.",
      values: { imageUrl: "https://example.com/typed.png", title: "Uploaded idea" },
    });
    expect(await db.inspirationPanel.count({ where: { title: "Uploaded idea" } })).toBe(1);
  });
});
