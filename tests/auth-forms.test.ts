// The /login, /forgot-password and /auth/callback route modules as a browser without JavaScript
// uses them: plain form POSTs answered by a redirect with a flash toast, or the form's errors.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { env } from "~/env.server";
import * as authCallbackPage from "~/routes/auth.callback";
import * as forgotPage from "~/routes/forgot-password";
import * as loginPage from "~/routes/login";
import { changePasswordFormSchema, resetPasswordSchema, setPasswordFormSchema, signUpFormSchema } from "~/utils/auth-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();

/** The toast a redirect or answer carries in its flash cookie (remix-toast's signed session). */
async function flashToast(response: Response): Promise<string | null> {
  const { getToast } = await import("~/toast.server");
  const cookies = response.headers
    .getSetCookie()
    .map((value) => value.split(";")[0]!)
    .join("; ");
  const { toast } = await getToast(new Request("http://localhost:3999/", { headers: { Cookie: cookies } }));
  return toast?.message ?? null;
}

function submit(form: Record<string, string>, cookie?: string, path = "/login") {
  return callRoute(loginPage, { method: "POST", path, form, cookie });
}

describe("schemas carry the spec's words", () => {
  it("sign-up, change, set and reset", () => {
    expect(signUpFormSchema.safeParse({ email: "a@b.co", password: "Secret123", confirmPassword: "Secret12" }).error?.issues[0]?.message).toBe(
      "Passwords do not match. Please try again.",
    );
    expect(signUpFormSchema.safeParse({ email: "a@b.co", password: "secret123", confirmPassword: "secret123" }).error?.issues[0]?.message).toBe(
      "Password must have at least 8 characters and 1 uppercase.",
    );
    expect(signUpFormSchema.safeParse({ email: "a@b.co", password: "Secret1", confirmPassword: "Secret1" }).success).toBe(false);
    expect(signUpFormSchema.safeParse({ email: "a@b.co", password: "Secret12", confirmPassword: "Secret12" }).success).toBe(true);
    expect(changePasswordFormSchema.safeParse({ currentPassword: "x", newPassword: "Secret123", confirmPassword: "Other1234" }).error?.issues[0]?.message).toBe(
      "Passwords do not match.",
    );
    expect(setPasswordFormSchema.safeParse({ newPassword: "short", confirmPassword: "short" }).error?.issues[0]?.message).toBe(
      "Password must have at least 8 characters and 1 uppercase.",
    );
    expect(resetPasswordSchema.safeParse({ email: "a@b.co", code: "", newPassword: "Secret1!" }).error?.issues[0]?.message).toBe("Please fill all fields.");
    for (const special of "!@#$%^&*") {
      expect(resetPasswordSchema.safeParse({ email: "a@b.co", code: "123456", newPassword: `Secret1${special}` }).success).toBe(true);
    }
    expect(resetPasswordSchema.safeParse({ email: "a@b.co", code: "123456", newPassword: "Secret1(" }).error?.issues[0]?.message).toBe(
      "Password must have at least 8 characters, 1 uppercase, and 1 special character.",
    );
  });
});

describe("/login forms", () => {
  it("sign-up redirects with the toast and a session; the page then shows the verification view", async () => {
    const response = await submit(
      { intent: "signup", email: "form@example.com", password: "Secret123", confirmPassword: "Secret123" },
      undefined,
      "/login?tab=signup",
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login");
    expect(await flashToast(response)).toBe("Account created and logged in successfully.");
    const session = response.headers
      .getSetCookie()
      .find((value) => value.startsWith("__session="))!
      .split(";")[0]!;
    const page = await readJsonBody<{ view: string; user: { mailVerified: boolean }; resendWait: number }>(
      await callRoute(loginPage, { path: "/login", cookie: session }),
    );
    expect(page).toMatchObject({ view: "account", user: { mailVerified: false } });
    expect(page.resendWait).toBeGreaterThan(55);

    // Verify with username + code from the mail().
    const code = await mail().nextCodeFor("form@example.com");
    const blank = await submit({ intent: "verify-email", username: " ", code }, session);
    expect(blank.status).toBe(400);
    expect(await readJsonBody(blank)).toMatchObject({ errors: { username: "Please enter a valid username." } });
    const verified = await submit({ intent: "verify-email", username: "Former", code }, session);
    expect(await flashToast(verified)).toBe("Email verified and username set successfully.");
    expect(await db.user.findUniqueOrThrow({ where: { email: "form@example.com" } })).toMatchObject({ mailVerified: true, fullName: "Former" });
  });

  it("login failure re-renders with the server's message, shown inline only (no toast as well)", async () => {
    const user = await createTestUser({ password: "Right1234" });
    const wrong = await submit({ intent: "login", email: user.email!, password: "Wrong1234" });
    expect(wrong.status).toBe(401);
    expect(await readJsonBody(wrong)).toEqual({ intent: "login", email: user.email!, errors: { form: "Invalid email or password." } });
    // A toast cookie here would also pop up on the next page a browser without JavaScript opens.
    expect(await flashToast(wrong)).toBeNull();
    const weak = await submit({ intent: "signup", email: "weak@example.com", password: "weak", confirmPassword: "weak" }, undefined, "/login?tab=signup");
    expect(weak.status).toBe(400);
    expect(await flashToast(weak)).toBeNull();
    const right = await submit({ intent: "login", email: user.email!, password: "Right1234" });
    expect(await flashToast(right)).toBe("Logged in successfully.");
  });

  it("resend within the cooldown is refused; cancel removes the unverified account and logs out", async () => {
    const signup = await submit({ intent: "signup", email: "quitter@example.com", password: "Secret123", confirmPassword: "Secret123" });
    const session = signup.headers
      .getSetCookie()
      .find((value) => value.startsWith("__session="))!
      .split(";")[0]!;
    await mail().nextMailTo("quitter@example.com");
    const resend = await submit({ intent: "resend" }, session);
    expect(resend.status).toBe(429);
    expect(String((await readJsonBody<{ errors: { form: string } }>(resend)).errors.form)).toMatch(/^Please wait \d+ seconds/);
    expect(await flashToast(resend)).toBeNull();
    const cancel = await submit({ intent: "cancel" }, session);
    expect(await flashToast(cancel)).toBe("Verification cancelled.");
    expect(await db.user.count({ where: { email: "quitter@example.com" } })).toBe(0);
  });

  it("change and set password forms", async () => {
    const user = await createTestUser({ password: "Current123" });
    const cookie = await sessionCookie(user.id);
    const mismatch = await submit(
      { intent: "change-password", currentPassword: "Current123", newPassword: "Newpass123", confirmPassword: "Newpass124" },
      cookie,
    );
    expect(await readJsonBody(mismatch)).toMatchObject({ errors: { confirmPassword: "Passwords do not match." } });
    expect(await flashToast(mismatch)).toBeNull();
    const changed = await submit(
      { intent: "change-password", currentPassword: "Current123", newPassword: "Newpass123", confirmPassword: "Newpass123" },
      cookie,
    );
    expect(await flashToast(changed)).toBe("Password changed successfully.");

    const provider = await createTestUser({ password: null, discordId: "d-form" });
    const providerCookie = await sessionCookie(provider.id);
    const set = await submit({ intent: "set-password", newPassword: "Firstpass1", confirmPassword: "Firstpass1" }, providerCookie);
    expect(await flashToast(set)).toBe("Password set successfully.");
    expect((await db.user.findUniqueOrThrow({ where: { id: provider.id } })).passwordHash).not.toBeNull();
  });

  it("toggle-admin without canBeAdmin answers the refusal", async () => {
    const user = await createTestUser();
    const response = await submit({ intent: "toggle-admin" }, await sessionCookie(user.id));
    expect(response.status).toBe(403);
    // Enable Admin has no inline error: its refusal is the toast.
    expect(await flashToast(response)).not.toBeNull();
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).isAdmin).toBe(false);
  });

  it("logout ends the session on the server", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const response = await submit({ intent: "logout" }, cookie);
    expect(await flashToast(response)).toBe("Logged out successfully.");
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe("/login?callback=", () => {
  it("redirects only to allowed origins, with userData or the error text", async () => {
    env().CALLBACK_ORIGINS.push("https://tools.example.com");
    const refused = await callRoute(loginPage, { path: `/login?callback=${encodeURIComponent("https://evil.example.com/x")}` });
    expect(refused.status).toBe(400);
    for (const sneaky of ["//evil.example.com", "javascript:alert(1)", "https://tools.example.com.evil.com/", "https://user@tools.example.com@evil.com/"]) {
      expect((await callRoute(loginPage, { path: `/login?callback=${encodeURIComponent(sneaky)}` })).status).toBe(400);
    }
    const guest = await callRoute(loginPage, { path: `/login?callback=${encodeURIComponent("https://tools.example.com/back?x=1")}` });
    expect(guest.status).toBe(302);
    const guestUrl = new URL(guest.headers.get("Location")!);
    expect(guestUrl.searchParams.get("error")).toBe("Not authenticated");
    expect(guestUrl.searchParams.get("x")).toBe("1");

    const user = await createTestUser({ canBeAdmin: true });
    const ok = await callRoute(loginPage, {
      path: `/login?callback=${encodeURIComponent("https://tools.example.com/back")}`,
      cookie: await sessionCookie(user.id),
    });
    const userData = JSON.parse(new URL(ok.headers.get("Location")!).searchParams.get("userData")!);
    expect(Object.keys(userData).sort()).toEqual(
      [
        "id",
        "email",
        "fullName",
        "isAdmin",
        "mailVerified",
        "hasPatreon",
        "hasGoogle",
        "hasDiscord",
        "current_tier",
        "kofiEmails",
        "hasPassword",
        "canBeAdmin",
        "tosAccepted",
      ].sort(),
    );
    expect(userData).toMatchObject({ id: user.id, canBeAdmin: true, hasPassword: true });
  });
});

describe("/login?callback= encoding", () => {
  it("encodes userData like encodeURIComponent (spaces as %20), so decodeURIComponent reads the right name", async () => {
    env().CALLBACK_ORIGINS.push("https://tools.example.com");
    const user = await createTestUser({ fullName: "Demo Fan & Co+Friends" });
    const ok = await callRoute(loginPage, {
      path: `/login?callback=${encodeURIComponent("https://tools.example.com/back?keep=a+b")}`,
      cookie: await sessionCookie(user.id),
    });
    const location = ok.headers.get("Location")!;
    // The callback's own query is left exactly as it was given.
    expect(location.startsWith("https://tools.example.com/back?keep=a+b&userData=")).toBe(true);
    const raw = location.split("userData=")[1]!;
    expect(raw).not.toContain("+");
    expect(JSON.parse(decodeURIComponent(raw))).toMatchObject({ id: user.id, fullName: "Demo Fan & Co+Friends" });

    const guest = await callRoute(loginPage, { path: `/login?callback=${encodeURIComponent("https://tools.example.com/back")}` });
    expect(guest.headers.get("Location")).toBe("https://tools.example.com/back?error=Not%20authenticated");
  });
});

describe("/forgot-password and /auth/callback without JavaScript", () => {
  it("two steps then /login", async () => {
    const user = await createTestUser({ password: "Old12345" });
    const empty = await callRoute(forgotPage, { method: "POST", path: "/forgot-password", form: { intent: "request", email: "" } });
    expect(await readJsonBody(empty)).toMatchObject({ errors: { email: "Please enter your email." } });
    expect(await flashToast(empty)).toBeNull();
    const badCode = await callRoute(forgotPage, {
      method: "POST",
      path: "/forgot-password",
      form: { intent: "reset", email: user.email!, code: "", newPassword: "Fresh!123" },
    });
    expect(badCode.status).toBe(400);
    expect(await flashToast(badCode)).toBeNull();
    const step1 = await callRoute(forgotPage, { method: "POST", path: "/forgot-password", form: { intent: "request", email: user.email! } });
    expect(step1.headers.get("Location")).toBe(`/forgot-password?step=2&email=${encodeURIComponent(user.email!)}`);
    expect(await flashToast(step1)).toBe("If an account exists with that email, a reset code has been sent.");
    const code = await mail().nextCodeFor(user.email!);
    const step2 = await callRoute(forgotPage, {
      method: "POST",
      path: "/forgot-password",
      form: { intent: "reset", email: user.email!, code, newPassword: "Fresh!123" },
    });
    expect(step2.headers.get("Location")).toBe("/login");
  });

  it("the callback page's form exchange answers 403 without the cookie", async () => {
    const response = await callRoute(authCallbackPage, { method: "POST", path: "/auth/callback", form: { code: "abcdefghijklmnopqrstuvwxyz" } });
    expect(response.status).toBe(403);
    expect((await readJsonBody<{ status: number }>(response)).status).toBe(403);
  });
});
