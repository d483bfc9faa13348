// Every cookie of ours gets its attributes where it is made (nobody rewrites Set-Cookie text on
// the way out): SameSite=Lax, HttpOnly for what scripts need not read, and Secure when the site
// is served over https. The site's address is set before any cookie object is made.
import { setEnv } from "./env";

setEnv("APP_URL", "https://library.example");

const { createUserSession } = await import("~/models/session.server");
const { loginCodeCookie } = await import("~/utils/auth-cookies.server");
const { nsfwAcceptedCookie } = await import("~/utils/visitor-cookies.server");
const { redirectWithSuccess } = await import("~/toast.server");
const { createTestUser } = await import("./helpers");

function attributes(setCookie: string): string[] {
  return setCookie
    .split(";")
    .slice(1)
    .map((part) => part.trim().toLowerCase());
}

describe("cookie attributes on an https site", () => {
  it("the session, the login-code binding and the toast are HttpOnly, SameSite=Lax and Secure", async () => {
    const user = await createTestUser();
    const toast = (await redirectWithSuccess("/", "Done.")).headers.get("Set-Cookie")!;
    for (const cookie of [await createUserSession(user.id), await loginCodeCookie().serialize("code"), toast]) {
      expect(attributes(cookie), cookie.split("=")[0]).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "secure", "path=/"]));
    }
  });

  it("the 18+ answer is SameSite=Lax and Secure (a script may read it, so not HttpOnly)", async () => {
    const cookie = await nsfwAcceptedCookie();
    expect(attributes(cookie)).toEqual(expect.arrayContaining(["samesite=lax", "secure", "path=/"]));
    expect(attributes(cookie)).not.toContain("httponly");
  });
});
