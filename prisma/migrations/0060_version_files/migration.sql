-- Several files per version (docs/decisions/022-version-files.md): a version's main file stays the
-- version row's own (so every post of today is one main file, its key, hashes and download rows
-- unchanged); its variants, add-ons and translations are version_files rows, each with an optional
-- gate of its own. A download records which of them it fetched (null: the main file).

-- CreateEnum
CREATE TYPE "file_role" AS ENUM ('variant', 'optional', 'translation');

-- AlterTable
ALTER TABLE "downloads" ADD COLUMN     "file_id" TEXT;

-- CreateTable
CREATE TABLE "version_files" (
    "id" TEXT NOT NULL,
    "version_id" TEXT NOT NULL,
    "role" "file_role" NOT NULL,
    "label" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL DEFAULT 0,
    "storage_key" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "zip_entries" JSONB,
    "gate_tier_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "gate_shop_item" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "version_files_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "version_files_version_id_position_idx" ON "version_files"("version_id", "position");

-- CreateIndex
CREATE INDEX "version_files_content_hash_idx" ON "version_files"("content_hash");

-- AddForeignKey
ALTER TABLE "downloads" ADD CONSTRAINT "downloads_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "version_files"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "version_files" ADD CONSTRAINT "version_files_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "post_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: a version's files are part of what the library lists and caches (like
-- post_versions, migration 0033), so a change to them bumps the library version.
CREATE CONSTRAINT TRIGGER "version_files_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "version_files"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "version_files_truncate_bump_library_version"
  AFTER TRUNCATE ON "version_files" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();

-- The download record names its file (the database function's source: prisma/functions).
-- Made by scripts/function-migration.ts from the sources in prisma/functions (the files named
-- below, as they stood). Change those files, not this one.

-- The function takes the file now: the old signature goes, or the two would be ambiguous.
DROP FUNCTION "record_download"(TEXT, TEXT, TEXT, TEXT, TEXT, TIMESTAMP(3), "download_access", BIGINT);

-- prisma/functions/record_download.sql
-- Records a download unless the same user, post and version (and version row and file) has a record within
-- the window; answers whether it wrote one (app/models/download.server.ts, recordDownload). The
-- advisory lock is held to the end of the calling statement's transaction, so a concurrent call of
-- the same download waits and then finds the other's row.
CREATE OR REPLACE FUNCTION "record_download"(
  p_id TEXT, p_user_id TEXT, p_post_id TEXT, p_version TEXT, p_version_id TEXT,
  p_created_at TIMESTAMP(3), p_access_source "download_access", p_window_ms BIGINT, p_file_id TEXT DEFAULT NULL)
RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('download:' || p_user_id || ':' || p_post_id));
  IF EXISTS (
    SELECT 1 FROM downloads d
     WHERE d.user_id = p_user_id AND d.post_id = p_post_id AND d.version = p_version
       AND d.version_id IS NOT DISTINCT FROM p_version_id
       AND d.file_id IS NOT DISTINCT FROM p_file_id
       AND d.created_at > p_created_at - make_interval(secs => p_window_ms / 1000.0)
  ) THEN
    RETURN FALSE;
  END IF;
  INSERT INTO downloads (id, user_id, post_id, version, version_id, created_at, access_source, file_id)
  VALUES (p_id, p_user_id, p_post_id, p_version, p_version_id, p_created_at, p_access_source, p_file_id);
  RETURN TRUE;
END
$$;
