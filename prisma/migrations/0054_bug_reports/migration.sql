-- Bug reports from downloaders (docs/product.md#bug-reports): a report on a post by an account that
-- downloaded it, its state (new, confirmed, fixed in a version, won't fix) and the "me too"s of others.
-- CreateEnum
CREATE TYPE "bug_report_state" AS ENUM ('NEW', 'CONFIRMED', 'FIXED', 'WONT_FIX');

-- CreateTable
CREATE TABLE "bug_reports" (
    "id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "version_id" TEXT,
    "version_label" TEXT NOT NULL,
    "game_patch" TEXT NOT NULL DEFAULT '',
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" "bug_report_state" NOT NULL DEFAULT 'NEW',
    "fixed_version_id" TEXT,
    "fixed_at" TIMESTAMP(3),
    "fix_notice_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "bug_reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bug_report_me_toos" (
    "report_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bug_report_me_toos_pkey" PRIMARY KEY ("report_id","user_id")
);

-- CreateIndex
CREATE INDEX "bug_reports_post_id_state_idx" ON "bug_reports"("post_id", "state");

-- CreateIndex
CREATE INDEX "bug_reports_state_created_at_idx" ON "bug_reports"("state", "created_at");

-- CreateIndex
CREATE INDEX "bug_reports_user_id_created_at_idx" ON "bug_reports"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "bug_report_me_toos_user_id_idx" ON "bug_report_me_toos"("user_id");

-- AddForeignKey
ALTER TABLE "bug_reports" ADD CONSTRAINT "bug_reports_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bug_reports" ADD CONSTRAINT "bug_reports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bug_reports" ADD CONSTRAINT "bug_reports_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "post_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bug_reports" ADD CONSTRAINT "bug_reports_fixed_version_id_fkey" FOREIGN KEY ("fixed_version_id") REFERENCES "post_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bug_report_me_toos" ADD CONSTRAINT "bug_report_me_toos_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "bug_reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bug_report_me_toos" ADD CONSTRAINT "bug_report_me_toos_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

