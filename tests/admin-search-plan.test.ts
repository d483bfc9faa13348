// The user search must use the b-tree indexes, not scan the users table: checked with EXPLAIN
// on 20,000 seeded users (timings are printed by `npm run bench`, never asserted here).
import { db } from "~/db.server";
import { searchUsers, userSearchPageSql } from "~/models/admin-users.server";

const USERS = 20_000;

beforeAll(async () => {
  await db.$executeRawUnsafe(`
    INSERT INTO users (id, email, full_name, patreon_id, created_at, updated_at)
    SELECT 'plan' || g, 'member' || g || '@plan.example',
           (ARRAY['Anna','Ben','Chloe','David','Emma'])[1 + g % 5] || ' Tester ' || g,
           CASE WHEN g % 3 = 0 THEN 'pat' || g END,
           now() - g * interval '1 second', now()
    FROM generate_series(1, ${USERS}) AS g`);
  await db.$executeRawUnsafe(`
    INSERT INTO shop_emails (id, user_id, email, created_at)
    SELECT 'pse' || g, 'plan' || g, 'buyer' || g || '@shop.example', now()
    FROM generate_series(2, ${USERS}, 2) AS g`);
  await db.$executeRawUnsafe("ANALYZE users");
  await db.$executeRawUnsafe("ANALYZE shop_emails");
});

async function plan(search: string): Promise<string> {
  const sql = userSearchPageSql({ search, page: 1, pageSize: 25 });
  const rows = await db.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${sql.text}`, ...sql.values);
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("user search query plan", () => {
  it("finds by email and shop email prefix through their indexes", async () => {
    const text = await plan("member1234");
    expect(text).toContain("users_email_key");
    expect(text).toContain("shop_emails_email_idx");
    expect(text).toContain("users_full_name_idx");
    expect(text).toContain("users_patreon_id_key");
    expect(text).not.toMatch(/Seq Scan on users/);
    expect(text).not.toMatch(/Seq Scan on shop_emails/);
  });

  it("finds by leak-trace number through its unique index", async () => {
    const text = await plan("4242");
    expect(text).toContain("users_number_key");
    expect(text).not.toMatch(/Seq Scan on users/);
  });

  it("finds by name prefix through the full name index, in any letter case", async () => {
    const text = await plan("chloe tester 12");
    expect(text).toContain("users_full_name_idx");
    expect(text).not.toMatch(/Seq Scan on users/);
    const result = await searchUsers({ search: "chloe tester 12", page: 1, pageSize: 25 });
    // Chloe is every 5th user starting at 2: 12, 122..., 1202... all start with "Chloe Tester 12".
    expect(result.users.every((user) => user.fullName!.startsWith("Chloe Tester 12"))).toBe(true);
    expect(result.total).toBe(await db.user.count({ where: { fullName: { startsWith: "Chloe Tester 12" } } }));
  });

  it("answers the same users as a plain substring filter would for prefixes", async () => {
    const result = await searchUsers({ search: "MEMBER1999", page: 1, pageSize: 100 });
    const expected = await db.user.findMany({ where: { email: { startsWith: "member1999", mode: "insensitive" } }, select: { id: true } });
    expect(result.users.map((user) => user.id).sort()).toEqual(expected.map((user) => user.id).sort());
    expect(result.total).toBe(expected.length);
  });
});
