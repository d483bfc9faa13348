-- Resumable uploads of post files (docs/product.md#uploads-that-resume): one row per upload an
-- admin started and has not completed or aborted; the upload-cleanup job aborts abandoned ones.
CREATE TABLE "upload_sessions" (
    "id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "admin_id" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "part_size" INTEGER NOT NULL,
    "label" TEXT,
    "notes" TEXT NOT NULL DEFAULT '',
    "driver" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "s3_upload_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_activity" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completing_since" TIMESTAMP(3),

    CONSTRAINT "upload_sessions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "upload_sessions_last_activity_idx" ON "upload_sessions"("last_activity");

ALTER TABLE "upload_sessions" ADD CONSTRAINT "upload_sessions_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "upload_sessions" ADD CONSTRAINT "upload_sessions_admin_id_fkey" FOREIGN KEY ("admin_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
