// A fresh site has no posts and no accounts yet (tiers come with the migrations); only a fresh site
// gets the demo content. One query, read by the seed (prisma/demo-content.ts) and by `npm start`,
// which asks it over a plain connection before it loads the seed's modules (a restart skips them).
import pg from "pg";

export const FRESH_SITE_SQL = "SELECT NOT EXISTS (SELECT 1 FROM posts) AND NOT EXISTS (SELECT 1 FROM users) AS fresh";

export async function isFreshSite(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ fresh: boolean }>(FRESH_SITE_SQL);
    return rows[0]?.fresh === true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
