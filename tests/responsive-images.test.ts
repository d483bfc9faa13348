import sharp from "sharp";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import * as mediaRoute from "~/routes/media.$";
import * as panelImageRoute from "~/routes/panel_images.$file";
import { imageSrcSet, parseImageWidth } from "~/utils/responsive-images";
import { callRoute } from "./helpers";

async function jpeg(width: number, height: number, color: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .jpeg()
    .toBuffer();
}

async function widthOf(response: Response): Promise<number | undefined> {
  return (await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width;
}

describe("responsive image variants", () => {
  it("serves a stored image at a listed width, keeps the variant, and follows a replaced original", async () => {
    const store = await storage();
    await store.put("images/posts/777.jpg", await jpeg(1280, 720, "#3366ff"));

    const small = await callRoute(mediaRoute, { path: "/media/posts/777.jpg?v=1&w=320", params: { "*": "posts/777.jpg" } });
    expect(small.status).toBe(200);
    expect(small.headers.get("Content-Type")).toBe("image/jpeg");
    expect(await widthOf(small)).toBe(320);

    const original = await callRoute(mediaRoute, { path: "/media/posts/777.jpg?v=1", params: { "*": "posts/777.jpg" } });
    expect(await widthOf(original)).toBe(1280);
    // A width that is not on the list is the original, so the set of variants stays bounded.
    const odd = await callRoute(mediaRoute, { path: "/media/posts/777.jpg?w=123", params: { "*": "posts/777.jpg" } });
    expect(await widthOf(odd)).toBe(1280);

    // A smaller original is never enlarged.
    await store.put("images/posts/777.jpg", await jpeg(600, 400, "#ff3366"));
    const replaced = await callRoute(mediaRoute, { path: "/media/posts/777.jpg?v=2&w=960", params: { "*": "posts/777.jpg" } });
    expect(await widthOf(replaced)).toBe(600);
    const replacedSmall = await callRoute(mediaRoute, { path: "/media/posts/777.jpg?v=2&w=320", params: { "*": "posts/777.jpg" } });
    const pixel = await sharp(Buffer.from(await replacedSmall.arrayBuffer()))
      .raw()
      .toBuffer();
    expect(pixel[0]).toBeGreaterThan(200); // red now, not the old blue variant

    const missing = await callRoute(mediaRoute, { path: "/media/posts/nope.jpg?w=320", params: { "*": "posts/nope.jpg" } });
    expect(missing.status).toBe(404);
  });

  it("resizes panel images too", async () => {
    const panel = await db.panel.create({ data: { title: "P", link: "https://example.com", imageVersion: "abc" } });
    await (await storage()).put(`panels/${panel.id}.jpg`, await jpeg(1280, 720, "#22aa44"));
    const response = await callRoute(panelImageRoute, { path: `/panel_images/${panel.id}.jpg?v=abc&w=640`, params: { file: `${panel.id}.jpg` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toContain("immutable");
    expect(await widthOf(response)).toBe(640);
  });

  it("describes the variants for the browser", () => {
    expect(imageSrcSet("/media/posts/1.jpg?v=9")).toBe(
      "/media/posts/1.jpg?v=9&w=320 320w, /media/posts/1.jpg?v=9&w=640 640w, /media/posts/1.jpg?v=9&w=960 960w, /media/posts/1.jpg?v=9&w=1280 1280w",
    );
    expect(parseImageWidth("640")).toBe(640);
    expect(parseImageWidth("641")).toBeNull();
    expect(parseImageWidth(null)).toBeNull();
  });
});
