-- Discord roles that follow access (docs/product.md#discord-roles): role mappings, the roles last
-- applied to each Discord member, the durable queue of Discord calls (role changes and release
-- announcements), and a release step's announcement webhook address.
-- CreateEnum
CREATE TYPE "discord_role_rule" AS ENUM ('TIER_AT_LEAST', 'OWNS_POST', 'OWNS_SHOP_ITEM', 'VOTED_FOR_IDEA', 'HOLDS_GRANT', 'ANY_PAID_ACCESS');

-- CreateEnum
CREATE TYPE "discord_job_status" AS ENUM ('PENDING', 'SENDING', 'DONE', 'GIVEN_UP');

-- AlterTable
ALTER TABLE "release_steps" ADD COLUMN     "announce_url" TEXT;

-- CreateTable
CREATE TABLE "discord_role_mappings" (
    "id" TEXT NOT NULL,
    "role_id" TEXT NOT NULL,
    "role_name" TEXT NOT NULL,
    "rule" "discord_role_rule" NOT NULL,
    "tier_id" TEXT,
    "post_id" TEXT,
    "shop_item" TEXT,
    "panel_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discord_role_mappings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discord_role_state" (
    "discord_user_id" TEXT NOT NULL,
    "role_id" TEXT NOT NULL,
    "user_id" TEXT,
    "reason" TEXT NOT NULL,
    "applied_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discord_role_state_pkey" PRIMARY KEY ("discord_user_id","role_id")
);

-- CreateTable
CREATE TABLE "discord_jobs" (
    "id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "discord_user_id" TEXT,
    "role_id" TEXT,
    "user_id" TEXT,
    "post_id" TEXT,
    "reason" TEXT NOT NULL,
    "webhook_url" TEXT,
    "payload" JSONB,
    "status" "discord_job_status" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claim_token" TEXT,
    "claimed_until" TIMESTAMP(3),
    "give_up_at" TIMESTAMP(3) NOT NULL,
    "last_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "done_at" TIMESTAMP(3),

    CONSTRAINT "discord_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "discord_role_mappings_role_id_key" ON "discord_role_mappings"("role_id");

-- CreateIndex
CREATE INDEX "discord_role_state_user_id_idx" ON "discord_role_state"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "discord_jobs_idempotency_key_key" ON "discord_jobs"("idempotency_key");

-- CreateIndex
CREATE INDEX "discord_jobs_status_next_attempt_at_idx" ON "discord_jobs"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "discord_jobs_discord_user_id_role_id_idx" ON "discord_jobs"("discord_user_id", "role_id");

-- CreateIndex
CREATE INDEX "discord_jobs_created_at_idx" ON "discord_jobs"("created_at");

