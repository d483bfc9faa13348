// The per-request user lookup is raw SQL (see USER_COLUMNS in session.server.ts): it must answer
// exactly what Prisma answers for the same user, field for field, for cookies and API tokens.
import { db } from "~/db.server";
import { getCurrentUser, hashToken } from "~/models/session.server";
import { buildRequest, createTestUser, sessionCookie } from "./helpers";

describe("getCurrentUser", () => {
  it("answers the session's user with every field Prisma has, with the same values and types", async () => {
    const user = await createTestUser({ email: "Mixed.Case@Example.com", patreonId: "p-1", currentTierId: "8824971", isAdmin: true, canBeAdmin: true, tosAccepted: true });
    const viaPrisma = await db.user.findUniqueOrThrow({ where: { id: user.id } });

    const viaSession = await getCurrentUser(buildRequest({ cookie: await sessionCookie(user.id) }));

    expect(viaSession).toStrictEqual(viaPrisma);
    expect(Object.keys(viaSession!).sort()).toEqual(Object.keys(viaPrisma).sort());
  });

  it("answers the token's user for a personal API token", async () => {
    const user = await createTestUser();
    await db.apiToken.create({ data: { userId: user.id, tokenHash: hashToken("secret-token") } });

    const viaToken = await getCurrentUser(buildRequest({ headers: { Authorization: "Bearer secret-token" } }));

    expect(viaToken).toStrictEqual(await db.user.findUniqueOrThrow({ where: { id: user.id } }));
    expect(await getCurrentUser(buildRequest({ headers: { Authorization: "Bearer other-token" } }))).toBeNull();
  });

  it("answers null for an unknown session and ends an expired one", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    await db.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    expect(await getCurrentUser(buildRequest({ cookie }))).toBeNull();
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
    expect(await getCurrentUser(buildRequest({ cookie: "__session=not-signed" }))).toBeNull();
  });
});
