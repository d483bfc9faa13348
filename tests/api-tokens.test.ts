// Personal API tokens (Authorization: Bearer): each lives API_TOKEN_LIFETIME_DAYS, and every
// token of an account ends when its password is changed, set for the first time or reset. The
// read-only feed link is another mechanism and stays.
import { db } from "~/db.server";
import { exportAccountData } from "~/models/account-data.server";
import { API_TOKEN_LIFETIME_DAYS, deleteExpiredApiTokens } from "~/models/api-token.server";
import { hashToken } from "~/models/session.server";
import * as changePasswordRoute from "~/routes/api.auth.change-password";
import * as forgotRoute from "~/routes/api.auth.forgot-password";
import * as resetRoute from "~/routes/api.auth.reset-password";
import * as setPasswordRoute from "~/routes/api.auth.set-password";
import * as userRoute from "~/routes/api.auth.user";
import { callRoute, createTestUser, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();
const DAY = 24 * 60 * 60 * 1000;

let counter = 0;
/** A token of the user as an admin would insert it by hand (only the hash is stored). */
async function tokenOf(userId: string, data: { createdAt?: Date; expiresAt?: Date } = {}): Promise<string> {
  counter += 1;
  const token = `api-token-${counter}-${Date.now()}`;
  await db.apiToken.create({ data: { userId, tokenHash: hashToken(token), label: "script", ...data } });
  return token;
}

async function asBearer(token: string) {
  return callRoute(userRoute, { path: "/api/auth/user", headers: { Authorization: `Bearer ${token}` } });
}

describe("lifetime", () => {
  it(`a token lives ${API_TOKEN_LIFETIME_DAYS} days from its creation, also one inserted by hand`, async () => {
    expect(API_TOKEN_LIFETIME_DAYS).toBe(90);
    const user = await createTestUser();
    const token = await tokenOf(user.id);
    const row = await db.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(token) } });
    expect(Math.abs(row.expiresAt.getTime() - row.createdAt.getTime() - API_TOKEN_LIFETIME_DAYS * DAY)).toBeLessThan(5_000);
    expect((await asBearer(token)).status).toBe(200);
  });

  it("an expired token is refused like an unknown one, and housekeeping removes it", async () => {
    const user = await createTestUser();
    const old = await tokenOf(user.id, { createdAt: new Date(Date.now() - 91 * DAY), expiresAt: new Date(Date.now() - DAY) });
    const fresh = await tokenOf(user.id);
    expect((await asBearer(old)).status).toBe(401);
    expect((await asBearer(fresh)).status).toBe(200);
    expect(await deleteExpiredApiTokens()).toBeGreaterThanOrEqual(1);
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(1);
  });

  it("Download my data shows when each token expires", async () => {
    const user = await createTestUser();
    await tokenOf(user.id);
    const data = await exportAccountData(user.id);
    expect(data.apiTokens).toEqual([{ label: "script", createdAt: expect.any(Date), lastUsedAt: null, expiresAt: expect.any(Date) }]);
  });
});

describe("revoked with the password", () => {
  async function postJson(route: Parameters<typeof callRoute>[0], path: string, json: unknown, options: { cookie?: string; token?: string } = {}) {
    return callRoute(route, { method: "POST", path, json, cookie: options.cookie, headers: options.token ? { Authorization: `Bearer ${options.token}` } : {} });
  }

  it("a password change ends every token, the one it was sent with included; another account's stay", async () => {
    const user = await createTestUser({ password: "Current123!" });
    const other = await createTestUser();
    const [first, second, theirs] = [await tokenOf(user.id), await tokenOf(user.id), await tokenOf(other.id)];
    const changed = await postJson(
      changePasswordRoute,
      "/api/auth/change-password",
      { currentPassword: "Current123!", newPassword: "Changed123!" },
      { token: first },
    );
    expect(changed.status).toBe(200);
    expect((await asBearer(first)).status).toBe(401);
    expect((await asBearer(second)).status).toBe(401);
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(0);
    expect((await asBearer(theirs)).status).toBe(200);
  });

  it("setting the first password ends the tokens of a provider account", async () => {
    const user = await createTestUser({ password: null, googleId: "google-token-owner" });
    const token = await tokenOf(user.id);
    const set = await postJson(setPasswordRoute, "/api/auth/set-password", { newPassword: "FirstPass1!" }, { cookie: await sessionCookie(user.id) });
    expect(set.status).toBe(200);
    expect((await asBearer(token)).status).toBe(401);
  });

  it("a reset ends every token; the feed link, read-only, stays", async () => {
    const user = await createTestUser({ password: "Forgotten1!" });
    const token = await tokenOf(user.id);
    await db.updateSubscription.create({
      data: { userId: user.id, feedTokenHash: "feed-hash-reset", feedTokenCreatedAt: new Date(), unsubscribeToken: "unsub-reset" },
    });
    expect((await postJson(forgotRoute, "/api/auth/forgot-password", { email: user.email })).status).toBe(200);
    const code = await mail().nextCodeFor(user.email!);
    const reset = await postJson(resetRoute, "/api/auth/reset-password", { email: user.email, code, newPassword: "Remembered1!" });
    expect(reset.status).toBe(200);
    expect((await asBearer(token)).status).toBe(401);
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(0);
    expect(await db.updateSubscription.count({ where: { userId: user.id, feedTokenHash: "feed-hash-reset" } })).toBe(1);
  });
});
