// Smaller security details: the toast cookie is really signed, the Bearer scheme
// is case-insensitive everywhere, /auth/callback shows only its own words, and a disabled
// post's image is for admins only.
import { createCookieSessionStorage } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { storage } from "~/integrations/storage.server";
import { hashToken } from "~/models/session.server";
import * as root from "~/root";
import * as userRoute from "~/routes/api.auth.user";
import * as callbackPage from "~/routes/auth.callback";
import * as media from "~/routes/media.$";
import { getToast, redirectWithSuccess } from "~/toast.server";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

/** A toast cookie as remix-toast 1.2.2 itself writes it: base64 JSON and an empty "signature". */
function forgedToastCookie(message: string): string {
  const value = Buffer.from(encodeURIComponent(JSON.stringify({ __flash_flash__: { toast: { message, type: "success" } } })), "utf8").toString("base64");
  return `toast-session=${value}.`;
}

describe("toast cookie", () => {
  it("a forged (unsigned or wrongly signed) toast is not shown", async () => {
    const forged = new Request("http://localhost:3999/", { headers: { Cookie: forgedToastCookie("Your account is suspended, call +1 555 0100") } });
    expect((await getToast(forged)).toast).toBeUndefined();
    const otherSecret = createCookieSessionStorage({ cookie: { name: "toast-session", secrets: ["not-our-secret-not-our-secret-000000"] } });
    const session = await otherSecret.getSession();
    session.flash("flash", { toast: { message: "Forged", type: "success" } });
    const signedElsewhere = (await otherSecret.commitSession(session)).split(";")[0]!;
    expect((await getToast(new Request("http://localhost:3999/", { headers: { Cookie: signedElsewhere } }))).toast).toBeUndefined();
    const page = await callRoute(root, { path: "/", cookie: forgedToastCookie("Forged toast") });
    expect(await readJsonBody(page)).toMatchObject({ toast: null });
  });

  it("our own toasts still arrive", async () => {
    const response = await redirectWithSuccess("/login", "Logged in successfully.");
    const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
    expect((await getToast(new Request("http://localhost:3999/", { headers: { Cookie: cookie } }))).toast).toMatchObject({
      message: "Logged in successfully.",
    });
  });
});

describe("Bearer tokens", () => {
  it("are accepted whatever the case of the scheme", async () => {
    const user = await createTestUser();
    await db.apiToken.create({ data: { userId: user.id, tokenHash: hashToken("case-token") } });
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const response = await callRoute(userRoute, { path: "/api/auth/user", headers: { Authorization: `${scheme} case-token` } });
      expect(response.status, scheme).toBe(200);
      expect((await readJsonBody(response)).id).toBe(user.id);
    }
  });
});

describe("/auth/callback errors", () => {
  it("shows the words of known codes only, never the text of the address", async () => {
    const known = await callRoute(callbackPage, { path: "/auth/callback?error=access_denied" });
    expect((await readJsonBody(known)).error).toBe("The sign-in was cancelled or refused at the provider.");
    const crafted = await callRoute(callbackPage, { path: `/auth/callback?error=${encodeURIComponent("Your account is locked. Call +1 555 0100 now")}` });
    const body = await readJsonBody(crafted);
    expect(body.error).toBe("Could not sign in. Please try again.");
    expect(JSON.stringify(body)).not.toContain("555");
  });
});

describe("images of disabled posts", () => {
  it("are served to admins only (404 for everyone else), privately", async () => {
    const store = await storage();
    const jpeg = Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex");
    await store.put("images/posts/hidden-post.jpg", jpeg, "image/jpeg");
    await store.put("images/posts/shown-post.jpg", jpeg, "image/jpeg");
    await db.post.create({ data: { id: "hidden-post", title: "Hidden", enabled: false, imageKey: "images/posts/hidden-post.jpg" } });
    await db.post.create({ data: { id: "shown-post", title: "Shown", enabled: true, imageKey: "images/posts/shown-post.jpg" } });
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const member = await createTestUser();
    const get = (file: string, cookie?: string) => callRoute(media, { path: `/media/posts/${file}`, params: { "*": `posts/${file}` }, cookie });

    expect((await get("hidden-post.jpg")).status).toBe(404);
    expect((await get("hidden-post.jpg", await sessionCookie(member.id))).status).toBe(404);
    const forAdmin = await get("hidden-post.jpg", await sessionCookie(admin.id));
    expect(forAdmin.status).toBe(200);
    expect(forAdmin.headers.get("Cache-Control")).toBe("private, no-store");
    const shown = await get("shown-post.jpg");
    expect(shown.status).toBe(200);
    expect(shown.headers.get("Cache-Control")).toContain("public");
  });
});
