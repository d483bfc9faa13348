-- Voter-linked releases (docs/product.md#releases): an inspiration item an admin links to the post
-- that realizes it (`post_id`, `shipped_at`), and who had voted for it then (`inspiration_voters`,
-- copied at the link, so a later reset of the likes keeps them).
ALTER TABLE "inspiration_panels" ADD COLUMN "post_id" TEXT,
ADD COLUMN "shipped_at" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "inspiration_voters" (
    "panel_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,

    CONSTRAINT "inspiration_voters_pkey" PRIMARY KEY ("panel_id","user_id")
);

-- CreateIndex
CREATE INDEX "inspiration_voters_user_id_idx" ON "inspiration_voters"("user_id");

-- CreateIndex
CREATE INDEX "inspiration_panels_post_id_idx" ON "inspiration_panels"("post_id");

-- AddForeignKey
ALTER TABLE "inspiration_panels" ADD CONSTRAINT "inspiration_panels_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inspiration_voters" ADD CONSTRAINT "inspiration_voters_panel_id_fkey" FOREIGN KEY ("panel_id") REFERENCES "inspiration_panels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inspiration_voters" ADD CONSTRAINT "inspiration_voters_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: the library shows "Inspired by 23 voters", so a change to the items bumps the
-- library version like a change to a post.
CREATE CONSTRAINT TRIGGER "inspiration_panels_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "inspiration_panels"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "inspiration_panels_truncate_bump_library_version"
  AFTER TRUNCATE ON "inspiration_panels" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
