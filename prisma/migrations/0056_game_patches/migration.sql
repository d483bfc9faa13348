-- Game patches, each post version's mark on each patch, and players' confirmations
-- (docs/product.md#game-patches). Written with prisma migrate diff; the triggers at the end by hand.
-- CreateEnum
CREATE TYPE "patch_mark" AS ENUM ('WORKS', 'BROKEN', 'UNTESTED');

-- CreateEnum
CREATE TYPE "player_verdict" AS ENUM ('WORKS', 'BROKEN');

-- AlterEnum
ALTER TYPE "update_kind" ADD VALUE 'PATCH_WORKS';

-- CreateTable
CREATE TABLE "game_patches" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "declared_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "current_since" TIMESTAMP(3),

    CONSTRAINT "game_patches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "version_patch_marks" (
    "version_id" TEXT NOT NULL,
    "patch_id" TEXT NOT NULL,
    "mark" "patch_mark" NOT NULL,
    "marked_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "version_patch_marks_pkey" PRIMARY KEY ("version_id","patch_id")
);

-- CreateTable
CREATE TABLE "patch_confirmations" (
    "user_id" TEXT NOT NULL,
    "version_id" TEXT NOT NULL,
    "patch_id" TEXT NOT NULL,
    "verdict" "player_verdict" NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "patch_confirmations_pkey" PRIMARY KEY ("user_id","version_id","patch_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "game_patches_name_key" ON "game_patches"("name");

-- CreateIndex
CREATE INDEX "game_patches_current_since_idx" ON "game_patches"("current_since");

-- CreateIndex
CREATE INDEX "version_patch_marks_patch_id_mark_idx" ON "version_patch_marks"("patch_id", "mark");

-- CreateIndex
CREATE INDEX "patch_confirmations_version_id_patch_id_idx" ON "patch_confirmations"("version_id", "patch_id");

-- AddForeignKey
ALTER TABLE "version_patch_marks" ADD CONSTRAINT "version_patch_marks_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "post_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "version_patch_marks" ADD CONSTRAINT "version_patch_marks_patch_id_fkey" FOREIGN KEY ("patch_id") REFERENCES "game_patches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "patch_confirmations" ADD CONSTRAINT "patch_confirmations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "patch_confirmations" ADD CONSTRAINT "patch_confirmations_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "post_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "patch_confirmations" ADD CONSTRAINT "patch_confirmations_patch_id_fkey" FOREIGN KEY ("patch_id") REFERENCES "game_patches"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: the library listing shows each post's mark on the current patch, and is kept per
-- library version (app/models/library-listing.server.ts): a new current patch or a changed mark
-- bumps that version like a change to the post. Players' confirmations do not (the listing
-- does not show them).
CREATE CONSTRAINT TRIGGER "game_patches_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "game_patches"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "game_patches_truncate_bump_library_version"
  AFTER TRUNCATE ON "game_patches" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();

CREATE CONSTRAINT TRIGGER "version_patch_marks_bump_library_version"
  AFTER INSERT OR UPDATE OR DELETE ON "version_patch_marks"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_library_version"();

CREATE TRIGGER "version_patch_marks_truncate_bump_library_version"
  AFTER TRUNCATE ON "version_patch_marks" FOR EACH STATEMENT EXECUTE FUNCTION "bump_library_version"();
