-- Issue 17, speed: the top posts' downloads since the rollups' cut (per day, and the version
-- adoption's new owners) are a range of (post_id, created_at) per post, where the post_id index
-- alone made PostgreSQL intersect bitmaps of every download of the top posts (180,000 entries in
-- the benchmark). The new index serves everything the old one did (it leads with post_id), so it
-- replaces it and downloads keep the same number of indexes to write. CONCURRENTLY, in a
-- migration of its own (docs/decisions/007): downloads are never blocked while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "downloads_post_id_created_at_idx" ON "downloads"("post_id", "created_at");
DROP INDEX CONCURRENTLY IF EXISTS "downloads_post_id_idx";
