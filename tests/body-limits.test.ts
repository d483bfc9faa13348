// The body limits live in one module (app/utils/body-limits.ts): the upload routes declare which
// kind they take and from whom (their `requestPolicy`, applied by server/security.ts before a
// byte is read; tests/server-security.test.ts drives that through the built server), and cap the
// files they read with the same numbers, at the exact byte.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { getToast } from "~/toast.server";
import * as frontUpload from "~/routes/api.upload.front.$id";
import * as panelUpload from "~/routes/api.panelsupload.$id.image";
import * as panelsApi from "~/routes/api.panels";
import * as home from "~/routes/_index";
import * as fileUpload from "~/routes/api.upload.file.$id";
import * as importPurchases from "~/routes/api.admin.import-purchases";
import * as library from "~/routes/library";
import * as admin from "~/routes/admin";
import * as login from "~/routes/api.auth.login";
import type { RequestPolicy } from "~/request-policy.server";
import { DEFAULT_BODY_LIMIT, MAX_IMAGE_BYTES } from "~/utils/body-limits";
import { buildRequest } from "./helpers";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost } from "./library-fixtures";

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

describe("the upload routes declare what they take, and from whom", () => {
  const policyOf = (module: object) => (module as { requestPolicy?: () => RequestPolicy }).requestPolicy?.() ?? {};

  it("names each upload route's largest file kind; other routes take no uploads", () => {
    const kinds: [object, string][] = [
      [fileUpload, "post-file"],
      [library, "post-file"],
      [admin, "post-file"],
      [frontUpload, "image"],
      [panelUpload, "image"],
      [home, "image"],
      [importPurchases, "csv"],
    ];
    for (const [module, kind] of kinds) expect(policyOf(module).upload?.kind).toBe(kind);
    for (const module of [panelsApi, login]) expect(policyOf(module).upload).toBeUndefined();
  });

  it("admits an admin's upload only, judged from the headers alone; anyone else hears the admin routes' refusal", async () => {
    const refusal = policyOf(library).upload!.refusal;
    const ask = (headers: Record<string, string>) => refusal(buildRequest({ method: "POST", path: "/library?intent=upload-file", headers }));
    const fan = await sessionCookie((await createTestUser()).id);
    const restricted = await sessionCookie((await createTestUser({ isAdmin: true, canBeAdmin: true, restricted: true })).id);
    const adminOnly = "You need to be logged in as an admin to perform this action.";
    expect(await ask({ Cookie: adminCookie })).toBeNull();
    expect(await ask({})).toEqual({ status: 401, error: adminOnly, headers: {} });
    expect(await ask({ Cookie: fan })).toEqual({ status: 403, error: adminOnly, headers: {} });
    expect(await ask({ Cookie: restricted })).toEqual({ status: 403, error: adminOnly, headers: {} });
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
