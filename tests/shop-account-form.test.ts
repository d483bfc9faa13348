import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as accountShopEmail from "~/routes/account.shop-email";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();

function submit(cookie: string | undefined, form: Record<string, string>) {
  return callRoute(accountShopEmail, { method: "POST", path: "/account/shop-email", form, cookie });
}

/** The flash toast a redirect carries (remix-toast keeps it in a signed cookie). */
function toastCookie(response: Response): string {
  return response.headers.get("Set-Cookie") ?? "";
}

describe("the account page's shop-email forms (no JavaScript)", () => {
  it("links, verifies with the mailed code and redirects back with a toast", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const linked = await submit(cookie, { intent: "link", email: "form@example.com", redirectTo: "/login" });
    expect(linked.status).toBe(302);
    expect(linked.headers.get("Location")).toBe("/login");
    expect(toastCookie(linked)).toContain("toast-session");
    const code = await mail().nextCodeFor("form@example.com");

    const bad = await submit(cookie, { intent: "verify", email: "form@example.com", code: "" });
    expect(bad.status).toBe(302);
    expect(await db.shopEmail.count({ where: { userId: user.id, verifiedAt: { not: null } } })).toBe(0);

    const verified = await submit(cookie, { intent: "verify", email: "form@example.com", code });
    expect(verified.status).toBe(302);
    expect(verified.headers.get("Location")).toBe("/login");
    const row = await db.shopEmail.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.verifiedEmail).toBe("form@example.com");
  });

  it("never redirects to another site and sends guests to /login", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    for (const redirectTo of ["//evil.example/x", "/\\evil.example", "https://evil.example/"]) {
      const response = await submit(cookie, { intent: "cancel", email: "none@example.com", redirectTo });
      expect(response.headers.get("Location")).toBe("/login");
    }
    const guest = await submit(undefined, { intent: "link", email: "guest@example.com" });
    expect(guest.status).toBe(302);
    expect(guest.headers.get("Location")).toBe("/login");
    expect(await db.shopEmail.count({ where: { email: "guest@example.com" } })).toBe(0);
  });
});
