-- Guests' free downloads, counted for Insights (docs/product.md, Insights): the post, the version
-- label and the time, nothing about who. One row per signed address (`link`, its signature).
-- CreateTable
CREATE TABLE "guest_downloads" (
    "id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "link" TEXT NOT NULL,

    CONSTRAINT "guest_downloads_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "guest_downloads_link_key" ON "guest_downloads"("link");

-- CreateIndex
CREATE INDEX "guest_downloads_created_at_post_id_idx" ON "guest_downloads"("created_at", "post_id");

-- CreateIndex
CREATE INDEX "guest_downloads_post_id_created_at_idx" ON "guest_downloads"("post_id", "created_at");

-- AddForeignKey
ALTER TABLE "guest_downloads" ADD CONSTRAINT "guest_downloads_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: guest downloads deleted with their post leave the rollups at the insights job's
-- next run, as account downloads do (the same marking function as migration 0031).
CREATE TRIGGER "guest_downloads_delete_insights_changes" AFTER DELETE ON "guest_downloads"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"();
CREATE TRIGGER "guest_downloads_truncate_insights_changes" AFTER TRUNCATE ON "guest_downloads"
  FOR EACH STATEMENT EXECUTE FUNCTION "insights_mark_changes"('downloads');
