// A big library for one user, for the "Updates for you" test and benchmark: `posts` posts (every
// fourth free, the rest for Tier 2 or Tier 3) and `downloads` download records of that user
// spread over them, older versions first, so about a third of the owned posts are behind.
import type { db as Db } from "~/db.server";
import { TIER_2, TIER_3 } from "./library-fixtures";

export async function seedUpdatesLibrary(db: typeof Db, userId: string, { posts = 1000, downloads = 10_000 } = {}) {
  await db.$executeRawUnsafe(`
    INSERT INTO posts (id, title, paid_content, version, first_published_at, last_updated, order_date, drive_file_id, file_name, file_size, updated_at)
    SELECT 'u' || g, 'Update post ' || g, g % 4 <> 0, 'V1.' || (g % 3), now() - g * interval '1 hour', now() - g * interval '1 minute',
           now() - g * interval '1 hour', 'posts/u' || g || '/file.package', 'file.package', 1024, now()
      FROM generate_series(1, ${posts}) AS g`);
  await db.$executeRawUnsafe(`
    INSERT INTO post_tiers (post_id, tier_id, kind)
    SELECT 'u' || g, CASE WHEN g % 2 = 0 THEN '${TIER_2}' ELSE '${TIER_3}' END, 'CURRENT'
      FROM generate_series(1, ${posts}) AS g WHERE g % 4 <> 0`);
  // Download n of post p: the latest one (highest n) has version V1.(n % 3); posts whose latest
  // downloaded version differs from theirs are behind.
  await db.$executeRawUnsafe(`
    INSERT INTO downloads (id, user_id, post_id, version, created_at)
    SELECT 'd' || g, '${userId}', 'u' || (1 + g % ${posts}), 'V1.' || ((g / ${posts}) % 3), now() - (${downloads} - g) * interval '1 minute'
      FROM generate_series(0, ${downloads - 1}) AS g`);
  await db.$executeRawUnsafe("ANALYZE posts");
  await db.$executeRawUnsafe("ANALYZE downloads");
}
