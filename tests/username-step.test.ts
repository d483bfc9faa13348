// The username step of Google and Discord accounts says "Your account is now verified." only when
// it is: an account the step does not verify (an address no provider vouched for, an email
// account) hears that its username was set, and nothing more.
import { getToast } from "remix-toast";
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { Prisma } from "~/generated/prisma/client";
import * as setUsernameDiscord from "~/routes/api.discord.set-username-discord";
import * as setUsernameGoogle from "~/routes/api.google.set-username-google";
import * as loginPage from "~/routes/login";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

const VERIFIED = "Username set successfully! Your account is now verified.";
const SET_ONLY = "Username set successfully.";

/** A Google account created with no address. */
const googleWithoutEmail: Partial<Prisma.UserCreateInput> = { signUpMethod: "GOOGLE", email: null, mailVerified: false, googleId: "g-step-none" };
/** A Discord account holding an address nobody proved (typed by an admin, say). */
const discordUnprovenEmail: Partial<Prisma.UserCreateInput> = {
  signUpMethod: "DISCORD",
  mailVerified: false,
  emailVerifiedBy: null,
  discordId: "d-step-typed",
};
/** An email account that has not entered its code. */
const unverifiedEmailAccount: Partial<Prisma.UserCreateInput> = { signUpMethod: "PASSWORD", mailVerified: false };

async function flashToast(response: Response): Promise<string | null> {
  const cookies = response.headers
    .getSetCookie()
    .map((value) => value.split(";")[0]!)
    .join("; ");
  const { toast } = await getToast(new Request("http://localhost:3999/", { headers: { Cookie: cookies } }));
  return toast?.message ?? null;
}

describe("the provider username step's answer", () => {
  it.each([
    ["/api/google/set-username-google", "a Google account without an email", setUsernameGoogle, googleWithoutEmail, VERIFIED, true],
    ["/api/discord/set-username-discord", "a Discord account with an unproven email", setUsernameDiscord, discordUnprovenEmail, SET_ONLY, false],
    ["/api/google/set-username-google", "an unverified email account", setUsernameGoogle, unverifiedEmailAccount, SET_ONLY, false],
    ["/api/discord/set-username-discord", "an unverified email account", setUsernameDiscord, unverifiedEmailAccount, SET_ONLY, false],
  ] as const)("POST %s by %s", async (path, _who, route, account, message, verified) => {
    const user = await createTestUser({ ...account });
    const response = await callRoute(route, { method: "POST", path, json: { username: "Chosen Name" }, cookie: await sessionCookie(user.id) });
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toEqual({ message, fullName: "Chosen Name", mailVerified: verified });
    expect(await db.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({ fullName: "Chosen Name", mailVerified: verified });
  });

  it.each([
    ["a Google account without an email", googleWithoutEmail, VERIFIED, true],
    ["a Discord account with an unproven email", discordUnprovenEmail, SET_ONLY, false],
    ["an unverified email account", unverifiedEmailAccount, SET_ONLY, false],
  ] as const)("the /login username form of %s", async (_who, account, message, verified) => {
    const user = await createTestUser({
      ...account,
      googleId: account.googleId ? `${account.googleId}-form` : undefined,
      discordId: account.discordId ? `${account.discordId}-form` : undefined,
    });
    const response = await callRoute(loginPage, {
      method: "POST",
      path: "/login",
      form: { intent: "set-username", username: "Form Name" },
      cookie: await sessionCookie(user.id),
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login");
    expect(await flashToast(response)).toBe(message);
    expect(await db.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({ fullName: "Form Name", mailVerified: verified });
  });
});
