// Provider login codes are verifications of their own purpose (LOGIN_CODE), not rows of the
// sessions table: a code never stands where a session id does, nor the other way round.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { db } from "~/db.server";
import { createLoginCode, exchangeLoginCode } from "~/models/login-code.server";
import * as callbackApi from "~/routes/api.auth.callback";
import { loginCodeCookie } from "~/utils/auth-cookies.server";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

/** POST /api/auth/callback for `code`, from a browser whose binding cookie holds `bound`. */
async function exchange(code: string, bound = code) {
  const cookie = (await loginCodeCookie().serialize(bound)).split(";")[0]!;
  return callRoute(callbackApi, { method: "POST", path: "/api/auth/callback", json: { code }, cookie });
}

const INVALID = { error: "Invalid or expired login code. Please try logging in again." };

describe("login codes", () => {
  it("live in verifications (purpose LOGIN_CODE) under a hash of the code, and are spent once", async () => {
    const user = await createTestUser();
    const code = await createLoginCode(user.id);
    const rows = await db.verification.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ purpose: "LOGIN_CODE", target: createHash("sha256").update(code).digest("hex") });
    expect(JSON.stringify(rows[0])).not.toContain(code);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);

    const exchanged = await exchange(code);
    expect(exchanged.status).toBe(200);
    // The exchange made the one session there is, and used the code up.
    expect(await db.session.count({ where: { userId: user.id } })).toBe(1);
    expect(await db.verification.count({ where: { userId: user.id } })).toBe(0);
    expect(await readJsonBody(await exchange(code))).toEqual(INVALID);
  });

  it("an expired code is refused and removed", async () => {
    const user = await createTestUser();
    const code = await createLoginCode(user.id);
    await db.verification.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const response = await exchange(code);
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual(INVALID);
    expect(await db.verification.count({ where: { userId: user.id } })).toBe(0);
  });

  it("a session id is no login code, even when the binding cookie carries it", async () => {
    const user = await createTestUser();
    await sessionCookie(user.id);
    const session = await db.session.findFirstOrThrow({ where: { userId: user.id } });
    const response = await exchange(session.id);
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual(INVALID);
    expect(response.headers.getSetCookie().some((value) => value.startsWith("__session="))).toBe(false);
    expect(await exchangeLoginCode(session.id)).toBeNull();
  });

  it("a login code of the old kind (a `login-code:` session row) is no longer accepted", async () => {
    const user = await createTestUser();
    const code = "legacy-code-legacy-code-legacy-code-0001";
    await db.session.create({
      data: { id: `login-code:${createHash("sha256").update(code).digest("hex")}`, userId: user.id, expiresAt: new Date(Date.now() + 60_000) },
    });
    expect((await exchange(code)).status).toBe(400);
  });

  it("migration 0006 drops old login-code rows, keeps real sessions, and can run again", async () => {
    const user = await createTestUser();
    await sessionCookie(user.id);
    await db.session.create({ data: { id: "login-code:old", userId: user.id, expiresAt: new Date(Date.now() + 60_000) } });
    const sql = readFileSync(new URL("../prisma/migrations/0006_login_code_purpose/migration.sql", import.meta.url), "utf8");
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(sql);
      await client.query(sql);
    } finally {
      await client.end();
    }
    const ids = (await db.session.findMany({ where: { userId: user.id } })).map((row) => row.id);
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toMatch(/^login-code:/);
  });
});
