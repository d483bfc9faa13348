-- Issue 16: every uploaded file of a post is a version; downloads record the exact one.

CREATE TABLE "post_versions" (
    "id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "notes" TEXT NOT NULL DEFAULT '',
    "storage_key" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT,
    "content_hash" TEXT,
    "zip_entries" JSONB,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "post_versions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "post_versions_post_id_created_at_idx" ON "post_versions"("post_id", "created_at");
CREATE INDEX "post_versions_content_hash_idx" ON "post_versions"("content_hash");
ALTER TABLE "post_versions" ADD CONSTRAINT "post_versions_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "posts" ADD COLUMN "current_version_id" TEXT;
CREATE UNIQUE INDEX "posts_current_version_id_key" ON "posts"("current_version_id");
ALTER TABLE "posts" ADD CONSTRAINT "posts_current_version_id_fkey" FOREIGN KEY ("current_version_id") REFERENCES "post_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

ALTER TABLE "downloads" ADD COLUMN "version_id" TEXT;
ALTER TABLE "downloads" ADD CONSTRAINT "downloads_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "post_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Each existing file becomes its post's first version. Its hashes and ZIP entries are unknown
-- here (the bytes are in storage); the versions job fills them in by reading each file once.
INSERT INTO "post_versions" ("id", "post_id", "label", "storage_key", "file_name", "size", "created_at")
SELECT 'v_' || md5("id"), "id", "version", "drive_file_id", COALESCE("file_name", "drive_file_id"), COALESCE("file_size", 0), COALESCE("last_updated", "published_at", "created_at")
FROM "posts"
WHERE "drive_file_id" IS NOT NULL;

UPDATE "posts" SET "current_version_id" = 'v_' || md5("id") WHERE "drive_file_id" IS NOT NULL;

-- Download records of a post that has one version so far belong to it.
UPDATE "downloads" d SET "version_id" = p."current_version_id"
FROM "posts" p
WHERE d."post_id" = p."id" AND p."current_version_id" IS NOT NULL AND d."version" = p."version";
