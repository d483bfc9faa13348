// Pages that show one person's data (an email, the leak-trace number, downloads, a feed link,
// users and audit rows) reach the browser as `no-store` documents, so no copy is written to its
// disk cache; guest pages keep their shared caching and other pages their private revalidation.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { GUEST_CACHE_CONTROL } from "~/document-cache.server";
import { createTestUser, sessionCookie } from "./helpers";
import { requestDocument } from "./documents";

function cacheControl(response: Response): string {
  return response.headers.get("Cache-Control") ?? "";
}

async function document(path: string, cookie?: string, method = "GET", form?: Record<string, string>) {
  const response = await requestDocument({ path, cookie, method, form });
  expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
  return response;
}

describe("documents of one person's data", () => {
  it.each([
    ["/account/delete", 200],
    ["/account/downloads", 200],
    ["/account/notifications", 200],
    ["/account/tokens", 200],
    ["/account/updates", 200],
    ["/login", 200],
  ])("a signed-in user's %s is no-store", async (path, status) => {
    const user = await createTestUser();
    const response = await document(path, await sessionCookie(user.id));
    expect(response.status).toBe(status);
    expect(cacheControl(response)).toContain("no-store");
    // The page carries the personal data the header protects.
    if (path === "/account/delete") expect(await response.text()).toContain(user.email!);
  });

  it.each([
    ["/admin", 200],
    ["/admin?user=x", 200],
    ["/admin/access-check?userId=x", 200],
    ["/admin/access-check?userId=x&post=", 400],
    ["/admin/insights?range=7", 200],
  ])("an admin's %s is no-store", async (path, status) => {
    const admin = await createTestUser({ canBeAdmin: true, isAdmin: true, tosAccepted: true });
    const response = await document(path, await sessionCookie(admin.id));
    expect(response.status).toBe(status);
    expect(cacheControl(response)).toContain("no-store");
  });

  it("Check access says nothing before anything is asked, and asks for both once the form is sent without a post", async () => {
    const admin = await createTestUser({ canBeAdmin: true, isAdmin: true, tosAccepted: true });
    const cookie = await sessionCookie(admin.id);
    expect(await (await document("/admin/access-check?userId=x", cookie)).text()).not.toContain("Choose a user and a post.");
    expect(await (await document("/admin/access-check?userId=x&post=", cookie)).text()).toContain("Choose a user and a post.");
  });

  it("the answer documents of the account forms are no-store too", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const refused = await document("/account/delete", cookie, "POST", { intent: "delete", password: "not the password" });
    expect(refused.status).toBe(401);
    expect(cacheControl(refused)).toContain("no-store");
    const saved = await document("/account/notifications", cookie, "POST", { intent: "preferences", newPosts: "on" });
    expect(saved.status).toBe(200);
    expect(cacheControl(saved)).toContain("no-store");
  });

  it("pages carrying a sign-in code, an address being reset or an unsubscribe token are no-store", async () => {
    expect(cacheControl(await document("/auth/callback?code=one-time-code"))).toContain("no-store");
    expect(cacheControl(await document("/forgot-password?step=2&email=someone%40example.com"))).toContain("no-store");
    const token = "A".repeat(43);
    expect(cacheControl(await document(`/unsubscribe/${token}`))).toContain("no-store");
  });

  it("guest pages keep their shared caching, a signed-in library view its private revalidation", async () => {
    expect(cacheControl(await document("/"))).toBe(GUEST_CACHE_CONTROL);
    expect(cacheControl(await document("/login"))).toBe("private, no-cache");
    const user = await createTestUser();
    expect(cacheControl(await document("/library", await sessionCookie(user.id)))).toBe("private, no-cache");
    expect(await db.user.count()).toBeGreaterThan(0);
  });
});
