// Issue 13: the per-route body limits live in one module (app/utils/body-limits.ts). The Express
// layer refuses bodies above them from their declared length; the routes cap the files they read
// with the same numbers. These tests pin both sides to the module, at the exact byte.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { getToast } from "~/toast.server";
import * as frontUpload from "~/routes/api.upload.front.$id";
import * as panelUpload from "~/routes/api.panelsupload.$id.image";
import * as panelsApi from "~/routes/api.panels";
import * as home from "~/routes/_index";
import { bodyLimitFor as routeBodyLimit, DEFAULT_BODY_LIMIT, MAX_CSV_BYTES, MAX_IMAGE_BYTES, maxFileBytes, MULTIPART_OVERHEAD, uploadKindFor } from "~/utils/body-limits";
import { bodyLimitFor } from "../server/security";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";

const POST_FILE_MAX = 123 * 1024 * 1024;
const serverOptions = { appUrl: "http://x", postFileMaxBytes: POST_FILE_MAX };

let adminCookie: string;

beforeAll(async () => {
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  adminCookie = await sessionCookie(admin.id);
});

function imageForm(field: string, size: number): FormData {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(size)], { type: "image/png" }), "big.png");
  return form;
}

describe("the Express layer reads its limits from the module", () => {
  it("answers each route's file limit plus the multipart framing, and 1 MiB elsewhere", () => {
    const routes: [string, string, number][] = [
      ["/api/upload/file/abc", "", POST_FILE_MAX],
      ["/library", "intent=upload-file&postId=a", POST_FILE_MAX],
      ["/library", "intent=upload-image", MAX_IMAGE_BYTES],
      ["/api/upload/front/abc", "", MAX_IMAGE_BYTES],
      ["/api/panelsupload/abc/image", "", MAX_IMAGE_BYTES],
      ["/", "index", MAX_IMAGE_BYTES],
      ["/admin", "", MAX_CSV_BYTES],
      ["/admin", "intent=trace-zip", POST_FILE_MAX],
      ["/api/admin/import-purchases", "", MAX_CSV_BYTES],
    ];
    for (const [path, query, fileBytes] of routes) {
      const search = new URLSearchParams(query);
      expect(bodyLimitFor(path, serverOptions, search), path).toBe(fileBytes + MULTIPART_OVERHEAD);
      expect(routeBodyLimit(path, POST_FILE_MAX, search), path).toBe(maxFileBytes(uploadKindFor(path, search)!, POST_FILE_MAX) + MULTIPART_OVERHEAD);
    }
    for (const path of ["/library", "/api/auth/login", "/api/panels", "/inspiration-vote", "/api/upload/file/a/../../auth/login"]) {
      expect(bodyLimitFor(path, serverOptions), path).toBe(DEFAULT_BODY_LIMIT);
    }
  });
});

describe("the routes cap what they read with the module's numbers", () => {
  it("a post's front image: one byte over MAX_IMAGE_BYTES is 413, exactly MAX_IMAGE_BYTES is read", async () => {
    const post = await createPost({ fileSize: null });
    const call = (size: number) => callRoute(frontUpload, { method: "POST", params: { id: post.id }, cookie: adminCookie, form: imageForm("image", size) });
    const over = await call(MAX_IMAGE_BYTES + 1);
    expect(over.status).toBe(413);
    expect(await readJsonBody(over)).toEqual({ error: "The file is too large." });
    // At the limit the bytes are read and judged as an image (zeros are not one).
    const at = await call(MAX_IMAGE_BYTES);
    expect(at.status).toBe(400);
  });

  it("a home panel's image, through the API and the page's form", async () => {
    const panel = await db.panel.create({ data: { title: "Limits", link: "https://example.com", index: 99 } });
    const over = await callRoute(panelUpload, { method: "POST", params: { id: panel.id }, cookie: adminCookie, form: imageForm("image", MAX_IMAGE_BYTES + 1) });
    expect(over.status).toBe(413);
    const at = await callRoute(panelUpload, { method: "POST", params: { id: panel.id }, cookie: adminCookie, form: imageForm("image", MAX_IMAGE_BYTES) });
    expect(at.status).toBe(400);

    const form = imageForm("image", MAX_IMAGE_BYTES + 1);
    for (const [name, value] of Object.entries({ title: "Too big", link: "https://example.com" })) form.append(name, value);
    const page = await callRoute(home, { method: "POST", path: "/?index", cookie: adminCookie, form });
    const cookie = (page.headers.get("Set-Cookie") ?? "").split(";")[0]!;
    const { toast } = await getToast(new Request("http://localhost:3999/", { headers: { Cookie: cookie } }));
    expect(toast).toMatchObject({ type: "error", message: "The image is too large (10 MB at most)." });
  });

  it("a JSON body just over DEFAULT_BODY_LIMIT is 413", async () => {
    const title = "x".repeat(DEFAULT_BODY_LIMIT);
    const over = await callRoute(panelsApi, { method: "POST", cookie: adminCookie, json: { title, link: "https://example.com" } });
    expect(over.status).toBe(413);
    expect(await readJsonBody(over)).toEqual({ error: "Request body is too large." });
  });
});
