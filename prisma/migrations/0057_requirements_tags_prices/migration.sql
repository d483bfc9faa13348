-- Issue 48 items 3, 5 and 6: post requirements (other posts or outside items), tags on posts,
-- and prices (a tier's currency, a shop item's price where the creator entered it).

-- AlterTable
ALTER TABLE "tiers" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'USD';

-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "shop_price_cents" INTEGER,
ADD COLUMN     "shop_currency" TEXT;

-- CreateTable
CREATE TABLE "tags" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "post_tags" (
    "post_id" TEXT NOT NULL,
    "tag_id" TEXT NOT NULL,

    CONSTRAINT "post_tags_pkey" PRIMARY KEY ("post_id","tag_id")
);

-- CreateTable
CREATE TABLE "post_requirements" (
    "id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "required_post_id" TEXT,
    "min_version" TEXT,
    "name" TEXT,
    "url" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "post_requirements_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tags_slug_key" ON "tags"("slug");

-- CreateIndex
CREATE INDEX "post_tags_tag_id_idx" ON "post_tags"("tag_id");

-- CreateIndex
CREATE INDEX "post_requirements_post_id_position_idx" ON "post_requirements"("post_id", "position");

-- CreateIndex
CREATE INDEX "post_requirements_required_post_id_idx" ON "post_requirements"("required_post_id");

-- AddForeignKey
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_requirements" ADD CONSTRAINT "post_requirements_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_requirements" ADD CONSTRAINT "post_requirements_required_post_id_fkey" FOREIGN KEY ("required_post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: cards show tags and requirements, so a change to them bumps the library version
-- like a change to a post (tags themselves: a renamed tag changes every card that shows it).
CREATE CONSTRAINT TRIGGER "tags_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "tags"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();
CREATE TRIGGER "tags_truncate_bump_library_version"
  AFTER TRUNCATE ON "tags" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
CREATE CONSTRAINT TRIGGER "post_tags_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "post_tags"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();
CREATE TRIGGER "post_tags_truncate_bump_library_version"
  AFTER TRUNCATE ON "post_tags" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
CREATE CONSTRAINT TRIGGER "post_requirements_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "post_requirements"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();
CREATE TRIGGER "post_requirements_truncate_bump_library_version"
  AFTER TRUNCATE ON "post_requirements" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
