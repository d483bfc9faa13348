// The per-request user lookup is raw SQL (see USER_COLUMNS in session.server.ts): it must answer
// exactly what Prisma answers for the same user, field for field, for cookies and API tokens.
import { db } from "~/db.server";
import { loadRequestViewer, loadViewerContext } from "~/models/entitlement.server";
import { getCurrentUser, getCurrentUserWith, hashToken } from "~/models/session.server";
import { buildRequest, createTestUser, queriesDuring, sessionCookie } from "./helpers";

describe("getCurrentUser", () => {
  it("answers the session's user with every field Prisma has, with the same values and types", async () => {
    const user = await createTestUser({
      email: "Mixed.Case@Example.com",
      patreonId: "p-1",
      currentTierId: "8824971",
      isAdmin: true,
      canBeAdmin: true,
      tosAccepted: true,
    });
    const viaPrisma = await db.user.findUniqueOrThrow({ where: { id: user.id } });

    const viaSession = await getCurrentUser(buildRequest({ cookie: await sessionCookie(user.id) }));

    expect(viaSession).toStrictEqual(viaPrisma);
    expect(Object.keys(viaSession!).sort()).toEqual(Object.keys(viaPrisma).sort());
  });

  it("lets the loaders of one request share one lookup while it is in flight, and looks again for a later request", async () => {
    const user = await createTestUser({ fullName: "Shared Lookup" });
    const cookie = await sessionCookie(user.id);
    // As Remix runs the root's and the page's loaders: together, each with its own Request.
    const {
      result: [forRoot, forPage],
      queries: lookups,
    } = await queriesDuring("session_viewer(", () => Promise.all([getCurrentUser(buildRequest({ cookie })), getCurrentUser(buildRequest({ cookie }))]));
    expect(lookups).toHaveLength(1);
    expect(forRoot).toStrictEqual(forPage);
    forRoot!.fullName = "Changed by one loader";
    expect(forPage!.fullName).toBe("Shared Lookup");

    // A later request looks again: a session ended meanwhile is not answered from the first.
    await db.session.deleteMany({ where: { userId: user.id } });
    const later = await queriesDuring("session_viewer(", () => getCurrentUser(buildRequest({ cookie })));
    expect(later.result).toBeNull();
    expect(later.queries).toHaveLength(1);
  });

  it("widens a lookup that has not been sent for a later ask, and gives each caller only what it asked", async () => {
    const user = await createTestUser({ currentTierId: "t-2" });
    const cookie = await sessionCookie(user.id);
    const wide = { withDownloads: true, withLibraryStamp: true, withAccessDetails: true };
    // The root's plain ask first, the library page's wide ask next, as Remix starts them.
    const {
      result: [narrow, widened],
      queries,
    } = await queriesDuring("session_viewer(", () =>
      Promise.all([getCurrentUserWith(buildRequest({ cookie }), null), getCurrentUserWith<Record<string, unknown>>(buildRequest({ cookie }), wide)]),
    );
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain("viewer_access_details(");
    expect(narrow!.extra).toEqual({});
    expect(widened!.user).toStrictEqual(narrow!.user);
    expect(Object.keys(widened!.extra).sort()).toEqual([
      "downloads",
      "grantSources",
      "pledges",
      "purchaseDetails",
      "purchases",
      "stamp",
      "tierTitles",
      "unlocked",
      "unverifiedPurchases",
      "voted",
    ]);
    expect(widened!.extra.stamp).toMatch(/^\d+$/);
    // What only the admins' check reads is left out of a page's lookup.
    expect(widened!.extra).toMatchObject({ unverifiedPurchases: null, tierTitles: null });

    // An ask for more after the lookup was sent reads on its own; the earlier caller is unchanged.
    const plainAsk = getCurrentUserWith(buildRequest({ cookie }), null);
    await new Promise((resolve) => setImmediate(resolve));
    const later = await queriesDuring("session_viewer(", () =>
      getCurrentUserWith<Record<string, unknown>>(buildRequest({ cookie }), { withDownloads: false, withLibraryStamp: true }),
    );
    expect((await plainAsk)!.extra).toEqual({});
    expect(later.queries).toHaveLength(1);
    expect(later.result!.extra).toMatchObject({ downloads: null, stamp: expect.stringMatching(/^\d+$/) });
    expect(later.result!.extra).not.toHaveProperty("tierTitles");
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

  it("reads the viewer's entitlements in the same round trip, equal to the separate lookups", async () => {
    const user = await createTestUser({ currentTierId: "t-2" });
    await db.post.createMany({ data: ["910001", "910002"].map((id) => ({ id, title: id, paidContent: true, kofiId: `K${id}`, orderDate: new Date() })) });
    await db.unlockedContent.create({ data: { userId: user.id, postId: "910001", source: "ADMIN" } });
    await db.shopEmail.create({ data: { userId: user.id, email: "buyer@example.com", verifiedEmail: "buyer@example.com", verifiedAt: new Date() } });
    await db.purchase.create({ data: { email: "BUYER@example.com", kofiItemCode: "K910002", transactionId: "tx-1", source: "CSV", purchasedAt: new Date() } });
    await db.pledgeEvent.create({
      data: {
        id: "pe-1",
        userId: user.id,
        type: "pledge_start",
        amountCents: 500,
        date: new Date("2026-01-02T03:04:05.678Z"),
        tierId: "t-2",
        paymentStatus: "Paid",
      },
    });
    await db.download.create({ data: { userId: user.id, postId: "910002", version: "V1.1" } });
    const request = buildRequest({ cookie: await sessionCookie(user.id) });
    const options = { withDownloads: true, withLibraryStamp: true };

    const together = await loadRequestViewer(request, options);
    const separate = await loadViewerContext(await getCurrentUser(request), options);

    expect(together.user).toStrictEqual(await db.user.findUniqueOrThrow({ where: { id: user.id } }));
    expect(together.context).toStrictEqual(separate);
    expect([...together.context.viewer!.unlockedPostIds]).toEqual(["910001"]);
    expect([...together.context.viewer!.purchasedKofiCodes]).toEqual(["K910002"]);
    expect(together.context.viewer!.pledges).toEqual([
      { type: "pledge_start", date: new Date("2026-01-02T03:04:05.678Z"), tierId: "t-2", paymentStatus: "Paid" },
    ]);
    expect(together.context.downloads).toEqual(new Map([["910002", "V1.1"]]));
    expect(together.context.libraryStamp).toMatch(/^\d+$/);
  });

  it("treats a request without a valid session as a guest", async () => {
    const guest = await loadRequestViewer(buildRequest({ cookie: "__session=unknown" }), { withLibraryStamp: true });
    expect(guest.user).toBeNull();
    expect(guest.context.viewer).toBeNull();
    expect(guest.context.libraryStamp).toMatch(/^\d+$/);
  });
});
