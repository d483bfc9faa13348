// Personal API tokens made by their owner (docs/api.md#personal-api-tokens): the API and the
// account page call the same model; the secret is shown once and only its hash is stored; a
// token never manages tokens; an unproven email, another account's token and the limit are refused.
import { db } from "~/db.server";
import { hashToken } from "~/models/session.server";
import * as pageRoute from "~/routes/account.tokens";
import * as tokensRoute from "~/routes/api.account.tokens";
import * as tokenRoute from "~/routes/api.account.tokens.$id";
import * as userRoute from "~/routes/api.auth.user";
import { API_TOKEN_MESSAGES, MAX_API_TOKENS_PER_ACCOUNT } from "~/utils/api-token-schemas";
import { requestDocument } from "./documents";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

type Made = { id: string; label: string; token: string; expires_at: string };

function make(label: unknown, options: { cookie?: string; headers?: Record<string, string> }) {
  return callRoute(tokensRoute, { method: "POST", path: "/api/account/tokens", json: { label }, ...options });
}

function list(options: { cookie?: string; headers?: Record<string, string> }) {
  return callRoute(tokensRoute, { path: "/api/account/tokens", ...options });
}

function revoke(id: string, options: { cookie?: string; headers?: Record<string, string> }) {
  return callRoute(tokenRoute, { method: "DELETE", path: `/api/account/tokens/${id}`, params: { id }, ...options });
}

function asBearer(token: string) {
  return callRoute(userRoute, { path: "/api/auth/user", headers: { Authorization: `Bearer ${token}` } });
}

describe("POST /api/account/tokens", () => {
  it("answers 201 with the token once; only its hash is stored, and the token works as Bearer", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const response = await make("  Laptop sync  ", { cookie });
    expect(response.status).toBe(201);
    expect(response.headers.get("Cache-Control")).toContain("no-store");
    const made = await readJsonBody<Made>(response);
    expect(Object.keys(made).sort()).toEqual(["expires_at", "id", "label", "token"]);
    expect(made.label).toBe("Laptop sync");
    expect(made.token.length).toBeGreaterThan(40);
    expect(new Date(made.expires_at).getTime()).toBeGreaterThan(Date.now() + 89 * 86_400_000);

    const row = await db.apiToken.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.userId).toBe(user.id);
    expect(row.tokenHash).toBe(hashToken(made.token));
    expect(JSON.stringify(row)).not.toContain(made.token);

    // The list never shows it again.
    const listed = await readJsonBody<{ tokens: Record<string, unknown>[] }>(await list({ cookie }));
    expect(listed.tokens).toEqual([{ id: made.id, label: "Laptop sync", created_at: expect.any(String), last_used_at: null, expires_at: made.expires_at }]);
    expect(JSON.stringify(listed)).not.toContain(made.token);

    const me = await asBearer(made.token);
    expect(me.status).toBe(200);
    expect((await readJsonBody(me)).id).toBe(user.id);
  });

  it("refuses a missing, empty or too long label with the schema's words", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    for (const [label, message] of [
      [undefined, API_TOKEN_MESSAGES.labelRequired],
      ["   ", API_TOKEN_MESSAGES.labelRequired],
      ["x".repeat(61), API_TOKEN_MESSAGES.labelTooLong],
    ] as const) {
      const response = await make(label, { cookie });
      expect(response.status).toBe(400);
      expect(await readJsonBody(response)).toEqual({ error: message });
    }
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(0);
  });

  it("a Bearer token cannot make, list or revoke tokens, not even with a session cookie beside it", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const made = await readJsonBody<Made>(await make("first", { cookie }));
    const bearer = { Authorization: `Bearer ${made.token}` };
    for (const response of [
      await make("minted", { headers: bearer }),
      await make("minted", { headers: bearer, cookie }),
      await list({ headers: bearer }),
      await revoke(made.id, { headers: bearer }),
    ]) {
      expect(response.status).toBe(403);
      expect(await readJsonBody(response)).toEqual({ error: API_TOKEN_MESSAGES.sessionOnly });
    }
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(1);
  });

  it("refuses an account whose email is unproven, and a guest", async () => {
    const unproven = await createTestUser({ mailVerified: false });
    const cookie = await sessionCookie(unproven.id);
    const refused = await make("script", { cookie });
    expect(refused.status).toBe(403);
    expect(await readJsonBody(refused)).toEqual({ error: "Please verify your email address before linking anything to your account." });
    expect((await list({ cookie })).status).toBe(403);
    expect(await db.apiToken.count({ where: { userId: unproven.id } })).toBe(0);
    const guest = await make("script", {});
    expect(guest.status).toBe(401);
    expect(await readJsonBody(guest)).toEqual({ error: "Not authenticated" });
  });

  it(`holds at most ${MAX_API_TOKENS_PER_ACCOUNT} live tokens per account`, async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    // An expired token does not count.
    await db.apiToken.create({ data: { userId: user.id, tokenHash: `expired-${user.id}`, label: "old", expiresAt: new Date(Date.now() - 1000) } });
    await db.apiToken.createMany({
      data: Array.from({ length: MAX_API_TOKENS_PER_ACCOUNT - 1 }, (_, index) => ({ userId: user.id, tokenHash: `h-${user.id}-${index}`, label: `t${index}` })),
    });
    expect((await make("last one", { cookie })).status).toBe(201);
    const over = await make("one too many", { cookie });
    expect(over.status).toBe(409);
    expect(await readJsonBody(over)).toEqual({ error: API_TOKEN_MESSAGES.tooMany });
    expect(await db.apiToken.count({ where: { userId: user.id, expiresAt: { gt: new Date() } } })).toBe(MAX_API_TOKENS_PER_ACCOUNT);
  });
});

describe("DELETE /api/account/tokens/{id}", () => {
  it("revokes the owner's token at once; another account's token id is a 404 and stays", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const ownerCookie = await sessionCookie(owner.id);
    const otherCookie = await sessionCookie(other.id);
    const mine = await readJsonBody<Made>(await make("mine", { cookie: ownerCookie }));
    const theirs = await readJsonBody<Made>(await make("theirs", { cookie: otherCookie }));

    const foreign = await revoke(theirs.id, { cookie: ownerCookie });
    expect(foreign.status).toBe(404);
    expect(await readJsonBody(foreign)).toEqual({ error: API_TOKEN_MESSAGES.notFound });
    expect((await asBearer(theirs.token)).status).toBe(200);

    const revoked = await revoke(mine.id, { cookie: ownerCookie });
    expect(revoked.status).toBe(200);
    expect(await readJsonBody(revoked)).toEqual({ message: API_TOKEN_MESSAGES.revoked });
    expect((await asBearer(mine.token)).status).toBe(401);
    expect(await db.apiToken.count({ where: { id: mine.id } })).toBe(0);
    expect((await revoke(mine.id, { cookie: ownerCookie })).status).toBe(404);
    expect((await readJsonBody<{ tokens: unknown[] }>(await list({ cookie: ownerCookie }))).tokens).toEqual([]);
  });
});

describe("the account page /account/tokens (no JavaScript)", () => {
  function post(form: Record<string, string>, cookie?: string, headers?: Record<string, string>) {
    return callRoute(pageRoute, { method: "POST", path: "/account/tokens", form, cookie, headers });
  }

  it("makes a token with the same rules, shows its secret in the answer to the POST only, lists and revokes it", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const created = await post({ intent: "create", label: "Desktop tool" }, cookie);
    expect(created.status).toBe(201);
    const data = await readJsonBody<{ ok: boolean; message: string; token: { label: string; secret: string } }>(created);
    expect(data).toMatchObject({ ok: true, message: API_TOKEN_MESSAGES.created, token: { label: "Desktop tool" } });
    const row = await db.apiToken.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.tokenHash).toBe(hashToken(data.token.secret));

    const page = await callRoute(pageRoute, { path: "/account/tokens", cookie });
    expect(page.status).toBe(200);
    const shown = await page.text();
    expect(shown).toContain("Desktop tool");
    expect(shown).not.toContain(data.token.secret);

    const invalid = await post({ intent: "create", label: "" }, cookie);
    expect(invalid.status).toBe(400);
    expect(await readJsonBody(invalid)).toMatchObject({ ok: false, field: API_TOKEN_MESSAGES.labelRequired });

    const revoked = await post({ intent: "revoke", id: row.id }, cookie);
    expect(revoked.status).toBe(200);
    expect(await readJsonBody(revoked)).toMatchObject({ ok: true, message: API_TOKEN_MESSAGES.revoked });
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(0);
  });

  it("refuses a token, says why to an unproven account, and sends a guest to /login", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const made = await readJsonBody<Made>(await make("tool", { cookie }));
    const withToken = await post({ intent: "create", label: "minted" }, undefined, { Authorization: `Bearer ${made.token}` });
    expect(withToken.status).toBe(403);
    expect(await withToken.text()).toBe(API_TOKEN_MESSAGES.sessionOnly);
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(1);

    const unproven = await createTestUser({ mailVerified: false });
    const unprovenCookie = await sessionCookie(unproven.id);
    const page = await readJsonBody<{ refusal: string | null }>(await callRoute(pageRoute, { path: "/account/tokens", cookie: unprovenCookie }));
    expect(page.refusal).toBe("Please verify your email address before linking anything to your account.");
    expect((await post({ intent: "create", label: "x" }, unprovenCookie)).status).toBe(403);

    const guest = await post({ intent: "create", label: "x" });
    expect(guest.status).toBe(302);
    expect(guest.headers.get("Location")).toBe("/login");
  });
});

describe("the rendered page, as a browser without JavaScript gets it", () => {
  it("shows the new token in the page that answers the POST, and never again", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const tab = await requestDocument({ path: "/account/tokens", cookie });
    expect(tab.status).toBe(200);
    const empty = await tab.text();
    expect(empty).toContain("You have no tokens.");
    expect(empty).toMatch(/<label for="token-label">Label<\/label>/);

    const answer = await requestDocument({ method: "POST", path: "/account/tokens", cookie, form: { intent: "create", label: "Render check" } });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("Cache-Control")).toContain("no-store");
    const html = await answer.text();
    const secret = /id="new-token-secret"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? /value="([^"]+)"[^>]*id="new-token-secret"/.exec(html)?.[1];
    expect(secret).toBeDefined();
    expect(html).toContain(API_TOKEN_MESSAGES.created);
    expect((await db.apiToken.findFirstOrThrow({ where: { userId: user.id } })).tokenHash).toBe(hashToken(secret!));

    const later = await (await requestDocument({ path: "/account/tokens", cookie })).text();
    expect(later).toContain("Render check");
    expect(later).not.toContain(secret!);
  });
});
