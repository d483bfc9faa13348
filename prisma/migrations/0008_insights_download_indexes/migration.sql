-- Issue 17: the downloads table is the large one, so its insights indexes are built without
-- blocking downloads (docs/decisions/007: a CONCURRENTLY script runs statement by statement).
-- Day buckets per access source with unique users, read from the index alone:
CREATE INDEX CONCURRENTLY IF NOT EXISTS "downloads_created_at_access_source_user_id_idx" ON "downloads"("created_at", "access_source", "user_id");
-- Version adoption rollups: owners per post and per version, counted in index order:
CREATE INDEX CONCURRENTLY IF NOT EXISTS "downloads_post_id_user_id_version_idx" ON "downloads"("post_id", "user_id", "version");
