// The admin /api endpoints against a real database: each operation, its refusals, the
// save-without-nulls rule and the audit entries.
import { db } from "~/db.server";
import * as adminPosts from "~/routes/api.admin.posts";
import * as adminPostsByIds from "~/routes/api.admin.posts.getByIds";
import * as searchByCode from "~/routes/api.admin.search-by-code";
import * as adminUsers from "~/routes/api.admin.users";
import * as adminUser from "~/routes/api.admin.users.$id";
import { withoutNullFields } from "~/utils/admin-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

type Json = Record<string, unknown>;

let adminCookie: string;
let adminId: string;
let fanCookie: string;

beforeAll(async () => {
  await db.tier.createMany({
    data: [
      { id: "8824971", title: "Tier 1", isPaid: true },
      { id: "8825009", title: "Tier 2", isPaid: true },
    ],
    // Migration 0030 holds these ids already.
    skipDuplicates: true,
  });
  await db.post.createMany({
    data: [
      { id: "p-castle", title: "Castle Walls Mod", paidContent: true },
      { id: "p-bridge", title: "Stone Bridge", paidContent: true },
      { id: "p-free", title: "Free Tree Pack", paidContent: false },
    ],
  });
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, fullName: "Ada Admin" });
  adminId = admin.id;
  adminCookie = await sessionCookie(admin.id);
  const fan = await createTestUser({ fullName: "Fan Person" });
  fanCookie = await sessionCookie(fan.id);
});

describe("refusals", () => {
  const calls: [string, () => Parameters<typeof callRoute>][] = [
    ["GET /api/admin/users", () => [adminUsers, { path: "/api/admin/users" }]],
    ["GET /api/admin/users/{id}", () => [adminUser, { path: `/api/admin/users/${adminId}`, params: { id: adminId } }]],
    [
      "PUT /api/admin/users/{id}",
      () => [adminUser, { method: "PUT", path: `/api/admin/users/${adminId}`, params: { id: adminId }, json: { restricted: true } }],
    ],
    ["GET /api/admin/posts", () => [adminPosts, { path: "/api/admin/posts" }]],
    ["POST /api/admin/posts/getByIds", () => [adminPostsByIds, { method: "POST", path: "/api/admin/posts/getByIds", json: { postIds: ["p-castle"] } }]],
    ["POST /api/admin/search-by-code", () => [searchByCode, { method: "POST", path: "/api/admin/search-by-code", json: { code: "1", keyword: "a" } }]],
  ];

  it.each(calls)("%s answers 401 to a guest and 403 to a non-admin", async (_name, build) => {
    const [route, options] = build();
    const guest = await callRoute(route, options);
    expect(guest.status).toBe(401);
    expect(await readJsonBody(guest)).toEqual({ error: "You need to be logged in as an admin to perform this action." });
    const fan = await callRoute(route, { ...options, cookie: fanCookie });
    expect(fan.status).toBe(403);
    expect(await readJsonBody(fan)).toEqual({ error: "You need to be logged in as an admin to perform this action." });
    // Nothing changed for the refused PUT.
    expect((await db.user.findUniqueOrThrow({ where: { id: adminId } })).restricted).toBe(false);
  });

  it("refuses a restricted admin", async () => {
    const restrictedAdmin = await createTestUser({ isAdmin: true, restricted: true });
    const response = await callRoute(adminUsers, { path: "/api/admin/users", cookie: await sessionCookie(restrictedAdmin.id) });
    expect(response.status).toBe(403);
  });
});

describe("GET /api/admin/users", () => {
  it("searches by email, name, shop email, support-platform id and leak-trace number, paginated", async () => {
    const zoe = await createTestUser({ email: "zoe.search@example.org", fullName: "Zoe Quartz", patreonId: "PAT-998877", currentTierId: "8825009" });
    await db.shopEmail.create({ data: { userId: zoe.id, email: "zoe-buys@shop.example", verifiedEmail: "zoe-buys@shop.example", verifiedAt: new Date() } });
    const other = await createTestUser({ email: "someone.else@example.org", fullName: "Quentin Other" });

    async function search(term: string, extra = "") {
      const response = await callRoute(adminUsers, { path: `/api/admin/users?search=${encodeURIComponent(term)}${extra}`, cookie: adminCookie });
      expect(response.status).toBe(200);
      return readJsonBody<{ users: Json[]; total: number; page: number; pageSize: number }>(response);
    }

    for (const term of ["ZOE.SE", "zoe.search@example.org", "zoe q", "Zoe", "ZOE-BUYS@shop", "PAT-998877", String(zoe.number)]) {
      const result = await search(term);
      expect(
        result.users.map((user) => user.id),
        term,
      ).toEqual([zoe.id]);
    }
    const [found] = (await search("zoe")).users;
    expect(found).toMatchObject({
      _id: zoe.id,
      email: "zoe.search@example.org",
      fullName: "Zoe Quartz",
      number: zoe.number,
      current_tier: "8825009",
      current_tier_title: "Tier 2",
      hasPatreon: true,
      hasGoogle: false,
      hasDiscord: false,
      hasPassword: true,
      mailVerified: true,
      restricted: false,
      isAdmin: false,
      kofiEmails: [{ email: "zoe-buys@shop.example", emailVerified: true }],
    });
    expect((await search("nobody-has-this")).users).toEqual([]);
    expect((await search("quentin")).users.map((user) => user.id)).toEqual([other.id]);

    // Pagination over everything, newest first, with a total.
    const all = await search("", "&pageSize=2");
    const count = await db.user.count();
    expect(all.total).toBe(count);
    expect(all.users).toHaveLength(2);
    const page2 = await search("", "&pageSize=2&page=2");
    expect(page2.page).toBe(2);
    expect(page2.users.map((user) => user.id)).not.toContain(all.users[0]!.id);
    const seen = new Set<string>();
    for (let page = 1; page <= Math.ceil(count / 2); page++) {
      for (const user of (await search("", `&pageSize=2&page=${page}`)).users) seen.add(user.id as string);
    }
    expect(seen.size).toBe(count);
  });
});

describe("GET /api/admin/users/{id}", () => {
  it("answers the user with unlocked content, downloads and pledge history", async () => {
    const user = await createTestUser({ fullName: "Detail Person" });
    await db.unlockedContent.create({ data: { userId: user.id, postId: "p-castle", source: "ADMIN" } });
    await db.download.create({ data: { userId: user.id, postId: "p-bridge", version: "V1.2" } });
    await db.pledgeEvent.create({
      data: {
        id: "pledge_start:1",
        userId: user.id,
        type: "pledge_start",
        amountCents: 500,
        date: new Date("2024-05-01T00:00:00Z"),
        tierId: "8825009",
        tierTitle: "Tier 2",
        paymentStatus: "Paid",
      },
    });
    const response = await callRoute(adminUser, { path: `/api/admin/users/${user.id}`, params: { id: user.id }, cookie: adminCookie });
    expect(response.status).toBe(200);
    const body = await readJsonBody(response);
    expect(body).toMatchObject({
      _id: user.id,
      fullName: "Detail Person",
      unlocked_content: ["p-castle"],
      downloads: [{ postId: "p-bridge", postTitle: "Stone Bridge", version: "V1.2" }],
      pledge_history: [
        { pledgeId: "pledge_start:1", amount_cents: 500, date: "2024-05-01T00:00:00.000Z", tier_title: "Tier 2", tier_id: "8825009", payment_status: "Paid" },
      ],
    });
  });

  it("answers 404 'User not found.' for an unknown or malformed id", async () => {
    for (const id of ["cunknownid000000", "bad id!"]) {
      const response = await callRoute(adminUser, { path: `/api/admin/users/x`, params: { id }, cookie: adminCookie });
      expect(response.status).toBe(404);
      expect(await readJsonBody(response)).toEqual({ error: "User not found." });
    }
  });
});

describe("PUT /api/admin/users/{id}", () => {
  async function put(userId: string, body: unknown) {
    return callRoute(adminUser, { method: "PUT", path: `/api/admin/users/${userId}`, params: { id: userId }, json: body, cookie: adminCookie });
  }

  it("applies the editable fields in one audited change and ignores the rest", async () => {
    const user = await createTestUser({ fullName: "Before Name", email: "before@example.com" });
    await db.unlockedContent.create({ data: { userId: user.id, postId: "p-bridge", source: "SYNC" } });
    const response = await put(user.id, {
      _id: user.id,
      fullName: "After Name",
      email: "after@example.com",
      restricted: true,
      canBeAdmin: true,
      isAdmin: false,
      current_tier: "8824971",
      unlocked_content: ["p-castle", "no-such-post"],
      kofiEmails: [{ email: "shop@buyer.example", emailVerified: false }],
      number: 999999, // not editable
      hasPatreon: true, // computed, ignored
    });
    expect(response.status).toBe(200);
    expect(await readJsonBody(response)).toEqual({ message: "User updated successfully." });

    const saved = await db.user.findUniqueOrThrow({ where: { id: user.id }, include: { unlockedContent: true, shopEmails: true } });
    expect(saved).toMatchObject({
      fullName: "After Name",
      email: "after@example.com",
      restricted: true,
      canBeAdmin: true,
      currentTierId: "8824971",
      number: user.number,
      patreonId: null,
    });
    expect(saved.unlockedContent.map((unlock) => [unlock.postId, unlock.source])).toEqual([["p-castle", "ADMIN"]]);
    expect(saved.shopEmails.map((shopEmail) => [shopEmail.email, shopEmail.verifiedEmail])).toEqual([["shop@buyer.example", null]]);

    const audit = await db.auditEntry.findMany({ where: { targetType: "user", targetId: user.id } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actorId: adminId,
      action: "user.update",
      before: {
        fullName: "Before Name",
        email: "before@example.com",
        restricted: false,
        canBeAdmin: false,
        current_tier: null,
        unlocked_content: ["p-bridge"],
        kofiEmails: [],
      },
      after: {
        fullName: "After Name",
        email: "after@example.com",
        restricted: true,
        canBeAdmin: true,
        current_tier: "8824971",
        unlocked_content: ["p-castle"],
        kofiEmails: [{ email: "shop@buyer.example", emailVerified: false }],
      },
    });
    // isAdmin did not change, so the entry does not mention it.
    expect(audit[0]!.before).not.toHaveProperty("isAdmin");
  });

  it("keeps fields that were left out or sent as null (the save-without-nulls rule)", async () => {
    const user = await createTestUser({ fullName: "Keep Me", currentTierId: "8825009", email: "keep@example.com" });
    const response = await put(user.id, { fullName: null, email: null, current_tier: null, restricted: true });
    expect(response.status).toBe(200);
    const saved = await db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(saved).toMatchObject({ fullName: "Keep Me", email: "keep@example.com", currentTierId: "8825009", restricted: true });
    // And the editor's own helper drops nulls before sending.
    expect(withoutNullFields({ fullName: null, email: "a@b.co", restricted: false, patreonId: undefined })).toEqual({ email: "a@b.co", restricted: false });
  });

  it("marks a shop email verified, and refuses one already verified on another account with 409", async () => {
    const owner = await createTestUser();
    await db.shopEmail.create({ data: { userId: owner.id, email: "taken@shop.example", verifiedEmail: "taken@shop.example", verifiedAt: new Date() } });
    const user = await createTestUser();
    await db.shopEmail.create({ data: { userId: user.id, email: "pending@shop.example" } });

    expect((await put(user.id, { kofiEmails: [{ email: "pending@shop.example", emailVerified: true }] })).status).toBe(200);
    const verified = await db.shopEmail.findFirstOrThrow({ where: { userId: user.id, email: "pending@shop.example" } });
    expect(verified.verifiedEmail).toBe("pending@shop.example");
    expect(verified.verifiedAt).not.toBeNull();

    const conflict = await put(user.id, { fullName: "Should Not Stick", kofiEmails: [{ email: "TAKEN@shop.example", emailVerified: true }] });
    expect(conflict.status).toBe(409);
    expect(await readJsonBody(conflict)).toEqual({ error: "That Ko-fi email is already verified on another account." });
    // One transaction: nothing of the refused save remains.
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).fullName).not.toBe("Should Not Stick");
    expect(await db.shopEmail.count({ where: { userId: user.id, email: "taken@shop.example" } })).toBe(0);
  });

  it("removes shop emails listed in removeKofiEmails (any case), verified or not, in the same audited change", async () => {
    const user = await createTestUser();
    await db.shopEmail.createMany({
      data: [
        { userId: user.id, email: "wrong@shop.example", verifiedEmail: "wrong@shop.example", verifiedAt: new Date() },
        { userId: user.id, email: "keep@shop.example" },
      ],
    });
    const response = await put(user.id, { removeKofiEmails: ["WRONG@shop.example"], kofiEmails: [{ email: "right@shop.example", emailVerified: false }] });
    expect(response.status).toBe(200);
    const left = await db.shopEmail.findMany({ where: { userId: user.id }, orderBy: { email: "asc" } });
    expect(left.map((row) => row.email)).toEqual(["keep@shop.example", "right@shop.example"]);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetType: "user", targetId: user.id, action: "user.update" } });
    expect(audit.after).toEqual({
      kofiEmails: [
        { email: "keep@shop.example", emailVerified: false },
        { email: "right@shop.example", emailVerified: false },
      ],
    });
    const invalid = await put(user.id, { removeKofiEmails: ["not-an-email"] });
    expect(invalid.status).toBe(400);
    expect(await db.shopEmail.count({ where: { userId: user.id } })).toBe(2);
  });

  it("validates shop emails and user emails in the spec's words", async () => {
    const user = await createTestUser();
    const empty = await put(user.id, { kofiEmails: [{ email: "  ", emailVerified: false }] });
    expect(empty.status).toBe(400);
    expect(await readJsonBody(empty)).toEqual({ error: "Ko-fi email cannot be empty." });
    const invalid = await put(user.id, { kofiEmails: [{ email: "not-an-email", emailVerified: false }] });
    expect(invalid.status).toBe(400);
    expect(await readJsonBody(invalid)).toEqual({ error: "Invalid email format." });

    const other = await createTestUser({ email: "occupied@example.com" });
    const taken = await put(user.id, { email: "OCCUPIED@example.com" });
    expect(taken.status).toBe(409);
    expect(await readJsonBody(taken)).toEqual({ error: "That email is already used by another account." });
    expect(other.email).toBe("occupied@example.com");
    expect(await db.auditEntry.count({ where: { targetId: user.id } })).toBe(0);
  });

  it("keeps admin mode tied to canBeAdmin, and stops an admin from locking themselves out", async () => {
    const user = await createTestUser();
    expect((await put(user.id, { isAdmin: true })).status).toBe(200);
    expect(await db.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({ isAdmin: true, canBeAdmin: true });
    expect((await put(user.id, { canBeAdmin: false })).status).toBe(200);
    expect(await db.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({ isAdmin: false, canBeAdmin: false });

    for (const body of [{ restricted: true }, { isAdmin: false }, { canBeAdmin: false }]) {
      const response = await put(adminId, body);
      expect(response.status).toBe(400);
      expect(await readJsonBody(response)).toEqual({ error: "You cannot restrict yourself or remove your own admin rights here." });
    }
    expect(await db.user.findUniqueOrThrow({ where: { id: adminId } })).toMatchObject({ isAdmin: true, restricted: false, canBeAdmin: true });
    // Saving themselves with admin kept is fine.
    expect((await put(adminId, { isAdmin: true, fullName: "Ada Admin" })).status).toBe(200);
  });

  it("answers 404 'User not found.' for an unknown user", async () => {
    const response = await put("cunknownid000000", { restricted: true });
    expect(response.status).toBe(404);
    expect(await readJsonBody(response)).toEqual({ error: "User not found." });
  });

  it("refuses a body that is not JSON", async () => {
    const response = await callRoute(adminUser, {
      method: "PUT",
      path: `/api/admin/users/${adminId}`,
      params: { id: adminId },
      body: "{nope",
      headers: { "Content-Type": "application/json" },
      cookie: adminCookie,
    });
    expect(response.status).toBe(400);
  });
});

describe("posts for the picker", () => {
  it("lists every post by title and resolves ids to titles in the order asked", async () => {
    const list = await callRoute(adminPosts, { path: "/api/admin/posts", cookie: adminCookie });
    expect(list.status).toBe(200);
    const { posts } = await readJsonBody<{ posts: Json[] }>(list);
    expect(posts.map((post) => post.title)).toEqual(["Castle Walls Mod", "Free Tree Pack", "Stone Bridge"]);
    expect(posts[0]).toMatchObject({ postId: "p-castle", _id: "p-castle" });

    const byIds = await callRoute(adminPostsByIds, {
      method: "POST",
      path: "/api/admin/posts/getByIds",
      json: { postIds: ["p-bridge", "missing", "p-castle"] },
      cookie: adminCookie,
    });
    expect(byIds.status).toBe(200);
    expect((await readJsonBody<{ posts: Json[] }>(byIds)).posts.map((post) => post.title)).toEqual(["Stone Bridge", "Castle Walls Mod"]);

    const bad = await callRoute(adminPostsByIds, { method: "POST", path: "/api/admin/posts/getByIds", json: { postIds: "p-castle" }, cookie: adminCookie });
    expect(bad.status).toBe(400);
  });
});

describe("POST /api/admin/search-by-code", () => {
  it("answers the number and the user's downloads whose post title matches the keyword", async () => {
    const leaker = await createTestUser({ fullName: "Leaky Larry" });
    const older = await db.download.create({ data: { userId: leaker.id, postId: "p-castle", version: "V1.0", createdAt: new Date("2024-01-01T00:00:00Z") } });
    const newer = await db.download.create({ data: { userId: leaker.id, postId: "p-castle", version: "V1.1", createdAt: new Date("2024-02-01T00:00:00Z") } });
    await db.download.create({ data: { userId: leaker.id, postId: "p-bridge", version: "V1.0" } });
    const someoneElse = await createTestUser();
    await db.download.create({ data: { userId: someoneElse.id, postId: "p-castle", version: "V1.0" } });

    const response = await callRoute(searchByCode, {
      method: "POST",
      path: "/api/admin/search-by-code",
      json: { code: String(leaker.number), keyword: "castle" },
      cookie: adminCookie,
    });
    expect(response.status).toBe(200);
    // A bare number is a plain lookup: nothing about it is verified (a stamp's tag would be).
    expect(await readJsonBody(response)).toEqual({
      number: leaker.number,
      stamp: "untagged",
      downloads: [
        { _id: newer.id, postId: "p-castle", postTitle: "Castle Walls Mod", username: "Leaky Larry", date: "2024-02-01T00:00:00.000Z" },
        { _id: older.id, postId: "p-castle", postTitle: "Castle Walls Mod", username: "Leaky Larry", date: "2024-01-01T00:00:00.000Z" },
      ],
    });

    const numeric = await callRoute(searchByCode, { method: "POST", path: "/x", json: { code: leaker.number, keyword: "zzz" }, cookie: adminCookie });
    expect(await readJsonBody(numeric)).toEqual({ number: leaker.number, stamp: "untagged", downloads: [] });
  });

  it("requires both code and keyword, and answers 404 for an unknown code", async () => {
    for (const body of [{ code: "", keyword: "castle" }, { code: "12" }, { keyword: "x" }, { code: "12", keyword: "   " }]) {
      const response = await callRoute(searchByCode, { method: "POST", path: "/x", json: body, cookie: adminCookie });
      expect(response.status).toBe(400);
      expect(await readJsonBody(response)).toEqual({ error: "Please enter both code and keyword" });
    }
    for (const code of ["99999999", "abc", "99999999999"]) {
      const response = await callRoute(searchByCode, { method: "POST", path: "/x", json: { code, keyword: "castle" }, cookie: adminCookie });
      expect(response.status).toBe(404);
      expect(await readJsonBody(response)).toEqual({ error: "User not found." });
    }
  });
});
