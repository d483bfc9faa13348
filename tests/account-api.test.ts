import { db } from "~/db.server";
import * as userRoute from "~/routes/api.auth.user";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

describe("GET /api/auth/user", () => {
  it("answers the whole account in the spec's field names", async () => {
    const user = await createTestUser({ fullName: "Ada", currentTierId: "8825009", patreonId: "p-1" });
    const post = await db.post.create({ data: { id: "9001", title: "Cabin", version: "V2.0" } });
    await db.unlockedContent.create({ data: { userId: user.id, postId: post.id, source: "ADMIN" } });
    await db.download.create({ data: { userId: user.id, postId: post.id, version: "V1.0" } });
    await db.pledgeEvent.create({
      data: {
        id: "pledge_start:1",
        userId: user.id,
        type: "pledge_start",
        amountCents: 500,
        date: new Date("2025-01-02T00:00:00Z"),
        tierId: "8825009",
        tierTitle: "Tier 2",
        paymentStatus: "Paid",
      },
    });
    await db.shopEmail.create({ data: { userId: user.id, email: "buyer@example.com" } });

    const response = await callRoute(userRoute, { path: "/api/auth/user", cookie: await sessionCookie(user.id) });
    expect(response.status).toBe(200);
    const body = await readJsonBody(response);
    expect(body).toMatchObject({
      _id: user.id,
      id: user.id,
      number: user.number,
      fullName: "Ada",
      hasPatreon: true,
      hasGoogle: false,
      hasDiscord: false,
      current_tier: "8825009",
      hasPassword: true,
      mailVerified: true,
      restricted: false,
      kofiEmails: [{ email: "buyer@example.com", emailVerified: false }],
      unlocked_content: ["9001"],
      downloads: [{ postId: "9001", postTitle: "Cabin", version: "V1.0" }],
      pledge_history: [{ pledgeId: "pledge_start:1", amount_cents: 500, tier_title: "Tier 2", tier_id: "8825009", payment_status: "Paid" }],
    });
    expect(JSON.stringify(body)).not.toContain("passwordHash");
  });
});

describe("POST /api/auth/change-password", () => {
  it("keeps the session that changed the password and ends every other one", async () => {
    const changeRoute = await import("~/routes/api.auth.change-password");
    const userRoute = await import("~/routes/api.auth.user");
    const user = await createTestUser({ password: "Password1!" });
    const here = await sessionCookie(user.id);
    const elsewhere = await sessionCookie(user.id);

    const response = await callRoute(changeRoute, {
      method: "POST",
      path: "/api/auth/change-password",
      cookie: here,
      json: { currentPassword: "Password1!", newPassword: "Another1!" },
    });
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toEqual({ message: "Password changed successfully." });

    expect((await callRoute(userRoute, { path: "/api/auth/user", cookie: here })).status).toBe(200);
    expect((await callRoute(userRoute, { path: "/api/auth/user", cookie: elsewhere })).status).toBe(401);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(1);
  });
});
