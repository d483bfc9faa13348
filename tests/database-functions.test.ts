// The database functions have one source each (prisma/functions), and the migrated database holds
// exactly those sources. The facts viewer_context gathers for the entitlement rule agree with plain
// reference queries over random data: grants, verified and unverified shop emails, purchases by
// addresses nobody verified, lapsed and declined pledges, downloads and voters.
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functionDrift, functionMigrationSql } from "../scripts/database-functions";

const USERS = ["dbf-user-0", "dbf-user-1", "dbf-user-2"];
const POSTS = ["dbf-post-0", "dbf-post-1", "dbf-post-2", "dbf-post-3"];
const CODES = ["K0", "K1", "K2", "K3", "K-none"];
const EMAILS = ["a@shop.example", "b@shop.example", "c@shop.example", "nobody@shop.example"];
const PANELS = ["dbf-panel-0", "dbf-panel-1", "dbf-panel-2"];

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  for (const id of USERS) await client.query("INSERT INTO users (id, email, updated_at) VALUES ($1, $2, now())", [id, `${id}@example.com`]);
  for (const [index, id] of POSTS.entries())
    await client.query("INSERT INTO posts (id, title, kofi_id, updated_at) VALUES ($1, $1, $2, now())", [id, CODES[index]]);
  for (const id of PANELS) await client.query("INSERT INTO inspiration_panels (id, image_url) VALUES ($1, 'https://example.com/i.jpg')", [id]);
});

afterAll(async () => {
  await client.end();
});

describe("one source per database function", () => {
  it("the latest migrations define every function exactly as prisma/functions writes it, and no function lacks a source", async () => {
    const drift = await functionDrift(client);
    expect(drift.changed.map((fn) => fn.file)).toEqual([]);
    expect(drift.withoutSource).toEqual([]);
  });

  it("a function changed behind its source's back is found, and a migration made from the sources mends it", async () => {
    // The verified-purchases join loosened so that a linked but unverified shop email counts.
    await client.query(`CREATE OR REPLACE FUNCTION "verified_purchases"(p_user_id TEXT) RETURNS SETOF "purchases" LANGUAGE sql STABLE AS $$
      SELECT p.* FROM purchases p JOIN shop_emails se ON se.email = p.email WHERE se.user_id = p_user_id $$`);
    const drift = await functionDrift(client);
    expect(drift.changed.map((fn) => fn.name)).toEqual(["verified_purchases"]);
    await client.query(functionMigrationSql(drift.changed));
    expect((await functionDrift(client)).changed).toEqual([]);
  });

  it("a source whose result type changed is dropped and created again by its migration", async () => {
    const source = readFileSync(path.resolve(import.meta.dirname, "../prisma/functions/inspiration_panel_views.sql"), "utf8");
    // As if an older migration had given the function another result type.
    await client.query(`DROP FUNCTION "inspiration_panel_views"(TEXT)`);
    await client.query(`CREATE FUNCTION "inspiration_panel_views"(p_user_id TEXT) RETURNS TABLE ("id" TEXT) LANGUAGE sql STABLE AS $$ SELECT p_user_id $$`);
    const drift = await functionDrift(client);
    expect(drift.changed.map((fn) => [fn.name, fn.drop])).toEqual([["inspiration_panel_views", ["inspiration_panel_views(text)"]]]);
    await client.query(functionMigrationSql(drift.changed));
    expect((await functionDrift(client)).changed).toEqual([]);
    expect(source).toContain('CREATE OR REPLACE FUNCTION "inspiration_panel_views"');
  });
});

// ---------------------------------------------------------------- viewer_context against plain queries

const world = fc.record({
  grants: fc.uniqueArray(fc.record({ user: fc.constantFrom(...USERS), post: fc.constantFrom(...POSTS), source: fc.constantFrom("ADMIN", "SYNC") }), {
    selector: (grant) => `${grant.user}/${grant.post}`,
    maxLength: 5,
  }),
  shopEmails: fc.array(fc.record({ user: fc.constantFrom(...USERS), email: fc.constantFrom(...EMAILS), verified: fc.boolean() }), { maxLength: 6 }),
  purchases: fc.array(fc.record({ email: fc.constantFrom(...EMAILS, "stranger@shop.example"), code: fc.constantFrom(...CODES) }), { maxLength: 8 }),
  pledges: fc.array(
    fc.record({
      user: fc.constantFrom(...USERS),
      type: fc.constantFrom("pledge_start", "pledge_upgrade", "pledge_downgrade", "pledge_delete"),
      tier: fc.option(fc.constantFrom("t1", "t2", "t3", "unknown-tier"), { nil: null }),
      status: fc.option(fc.constantFrom("Paid", "Declined", "Pending"), { nil: null }),
      day: fc.integer({ min: 0, max: 400 }),
    }),
    { maxLength: 8 },
  ),
  downloads: fc.array(fc.record({ user: fc.constantFrom(...USERS), post: fc.constantFrom(...POSTS), version: fc.constantFrom("V1.0", "V1.1", "V2.0") }), {
    maxLength: 8,
  }),
  panels: fc.tuple(...PANELS.map(() => fc.record({ post: fc.option(fc.constantFrom(...POSTS), { nil: null }), votersGetAccess: fc.boolean() }))),
  voters: fc.uniqueArray(fc.record({ user: fc.constantFrom(...USERS), panel: fc.constantFrom(...PANELS) }), {
    selector: (voter) => `${voter.user}/${voter.panel}`,
    maxLength: 6,
  }),
});

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

async function store(value: World): Promise<void> {
  for (const table of ["unlocked_content", "shop_emails", "purchases", "pledge_events", "downloads", "inspiration_voters"])
    await client.query(`DELETE FROM ${table}`);
  for (const grant of value.grants)
    await client.query("INSERT INTO unlocked_content (user_id, post_id, source) VALUES ($1, $2, $3)", [grant.user, grant.post, grant.source]);
  // One verified owner per address (a unique index): a later claim of a verified address stays pending.
  for (const shop of value.shopEmails) {
    await client.query(
      `INSERT INTO shop_emails (id, user_id, email, verified_email, verified_at)
       SELECT gen_random_uuid()::text, $1, $2, CASE WHEN $3 AND NOT EXISTS (SELECT 1 FROM shop_emails WHERE verified_email = $2) THEN $2 END, NULL
       ON CONFLICT DO NOTHING`,
      [shop.user, shop.email, shop.verified],
    );
  }
  for (const [index, purchase] of value.purchases.entries()) {
    await client.query(
      "INSERT INTO purchases (id, email, kofi_item_code, transaction_id, source, purchased_at) VALUES (gen_random_uuid()::text, $1, $2, $3, 'ADMIN', now())",
      [purchase.email, purchase.code, `tx-${index}`],
    );
  }
  for (const [index, pledge] of value.pledges.entries()) {
    await client.query(
      "INSERT INTO pledge_events (id, user_id, type, amount_cents, date, tier_id, payment_status) VALUES ($1, $2, $3, 500, timestamp '2025-01-01' + $4 * interval '1 day' + $5 * interval '1 ms', $6, $7)",
      [`${pledge.type}:${index}`, pledge.user, pledge.type, pledge.day, index, pledge.tier, pledge.status],
    );
  }
  // Distinct times, so "the version downloaded last" is one row.
  for (const [index, download] of value.downloads.entries()) {
    await client.query(
      "INSERT INTO downloads (id, user_id, post_id, version, created_at) VALUES (gen_random_uuid()::text, $1, $2, $3, timestamp '2026-01-01' + $4 * interval '1 second')",
      [download.user, download.post, download.version, index],
    );
  }
  for (const [index, panel] of value.panels.entries()) {
    await client.query("UPDATE inspiration_panels SET post_id = $2, voters_get_access = $3 WHERE id = $1", [PANELS[index], panel.post, panel.votersGetAccess]);
  }
  for (const voter of value.voters) await client.query("INSERT INTO inspiration_voters (panel_id, user_id) VALUES ($1, $2)", [voter.panel, voter.user]);
}

type Facts = {
  unlocked: string[];
  purchases: string[];
  pledges: { type: string; date: string; tierId: string | null; paymentStatus: string | null }[];
  downloads: Record<string, string>;
  voted: Record<string, boolean>;
};

/** What viewer_context answers for the user, parsed as the app parses it. */
async function functionFacts(userId: string): Promise<Facts> {
  const { rows } = await client.query<Record<string, string | null>>("SELECT * FROM viewer_context($1, true, false)", [userId]);
  const parse = <T>(text: string | null | undefined, empty: T): T => (text ? (JSON.parse(text) as T) : empty);
  const row = rows[0];
  return {
    unlocked: parse<string[]>(row?.unlocked, []).sort(),
    purchases: parse<string[]>(row?.purchases, []).sort(),
    pledges: parse<Facts["pledges"]>(row?.pledges, []),
    downloads: parse<Record<string, string>>(row?.downloads, {}),
    voted: parse<Record<string, boolean>>(row?.voted, {}),
  };
}

/** The same facts from plain queries, each written from the rule's words (docs/product.md), not from the function. */
async function referenceFacts(userId: string): Promise<Facts> {
  const unlocked = await client.query<{ post_id: string }>("SELECT post_id FROM unlocked_content WHERE user_id = $1", [userId]);
  // A purchase counts for the user when its address is one the user verified.
  const purchases = await client.query<{ code: string }>(
    "SELECT DISTINCT kofi_item_code AS code FROM purchases WHERE email IN (SELECT verified_email FROM shop_emails WHERE user_id = $1 AND verified_email IS NOT NULL)",
    [userId],
  );
  const pledges = await client.query<{ type: string; date: Date; tier_id: string | null; payment_status: string | null }>(
    "SELECT type, date, tier_id, payment_status FROM pledge_events WHERE user_id = $1 ORDER BY id",
    [userId],
  );
  const downloads = await client.query<{ post_id: string; version: string; created_at: Date }>(
    "SELECT post_id, version, created_at FROM downloads WHERE user_id = $1",
    [userId],
  );
  const votes = await client.query<{ post_id: string | null; voters_get_access: boolean }>(
    "SELECT ip.post_id, ip.voters_get_access FROM inspiration_voters iv JOIN inspiration_panels ip ON ip.id = iv.panel_id WHERE iv.user_id = $1",
    [userId],
  );
  const latest = new Map<string, { version: string; at: number }>();
  for (const row of downloads.rows) {
    const seen = latest.get(row.post_id);
    if (!seen || row.created_at.getTime() > seen.at) latest.set(row.post_id, { version: row.version, at: row.created_at.getTime() });
  }
  const voted: Record<string, boolean> = {};
  for (const row of votes.rows) if (row.post_id) voted[row.post_id] = (voted[row.post_id] ?? false) || row.voters_get_access;
  return {
    unlocked: unlocked.rows.map((row) => row.post_id).sort(),
    purchases: purchases.rows.map((row) => row.code).sort(),
    // Stored without a time zone; the pg driver reads such times as local time, as the function's text is UTC.
    pledges: pledges.rows.map((row) => ({
      type: row.type,
      date: new Date(row.date.getTime() - row.date.getTimezoneOffset() * 60_000).toISOString(),
      tierId: row.tier_id,
      paymentStatus: row.payment_status,
    })),
    downloads: Object.fromEntries([...latest].map(([postId, { version }]) => [postId, version])),
    voted,
  };
}

describe("viewer_context gathers what the rule reads", () => {
  it("agrees with plain reference queries on random grants, shop emails, purchases, pledges, downloads and votes", async () => {
    await fc.assert(
      fc.asyncProperty(world, async (value) => {
        await store(value);
        for (const user of USERS) expect(await functionFacts(user), user).toEqual(await referenceFacts(user));
      }),
      { numRuns: 40 },
    );
  });

  it("tells a purchase made with an unverified shop email apart: the loosened join disagrees with the reference", async () => {
    await store({
      grants: [],
      shopEmails: [{ user: USERS[0]!, email: EMAILS[0]!, verified: false }],
      purchases: [{ email: EMAILS[0]!, code: "K0" }],
      pledges: [],
      downloads: [],
      panels: [
        { post: null, votersGetAccess: false },
        { post: null, votersGetAccess: false },
        { post: null, votersGetAccess: false },
      ],
      voters: [],
    });
    expect(await functionFacts(USERS[0]!)).toEqual(await referenceFacts(USERS[0]!));
    await client.query(`CREATE OR REPLACE FUNCTION "verified_purchases"(p_user_id TEXT) RETURNS SETOF "purchases" LANGUAGE sql STABLE AS $$
      SELECT p.* FROM purchases p JOIN shop_emails se ON se.email = p.email WHERE se.user_id = p_user_id $$`);
    try {
      expect((await functionFacts(USERS[0]!)).purchases).toEqual(["K0"]);
      expect((await referenceFacts(USERS[0]!)).purchases).toEqual([]);
    } finally {
      await client.query(functionMigrationSql((await functionDrift(client)).changed));
    }
  });
});
