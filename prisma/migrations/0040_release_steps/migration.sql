-- Releases (docs/product.md#releases, docs/decisions/016-releases.md): a post may be scheduled
-- (`publish_at`, hidden from everyone but admins until then) and may open in steps, each to a tier
-- and the tiers above it, or to everyone. A step's `opens_at` is computed when it is saved, from
-- the admin's `after_days` (after publication) or `opens_on` (a fixed time), and again whenever
-- the publication time moves. `tier_ids` is the audience as saved (the tier and those above it),
-- empty for everyone.
ALTER TABLE "posts" ADD COLUMN "publish_at" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "release_steps" (
    "id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "audience_tier_id" TEXT,
    "tier_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "after_days" INTEGER,
    "opens_on" TIMESTAMP(3),
    "opens_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "release_steps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "release_steps_post_id_position_key" ON "release_steps"("post_id", "position");

-- CreateIndex
CREATE INDEX "release_steps_opens_at_idx" ON "release_steps"("opens_at");

-- CreateIndex
CREATE INDEX "posts_publish_at_idx" ON "posts"("publish_at");

-- AddForeignKey
ALTER TABLE "release_steps" ADD CONSTRAINT "release_steps_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_steps" ADD CONSTRAINT "release_steps_audience_tier_id_fkey" FOREIGN KEY ("audience_tier_id") REFERENCES "tiers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: a change to a post's steps bumps the library version like a change to the post.
CREATE CONSTRAINT TRIGGER "release_steps_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "release_steps"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "release_steps_truncate_bump_library_version"
  AFTER TRUNCATE ON "release_steps" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
