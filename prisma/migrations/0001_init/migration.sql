-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "citext";

-- CreateEnum
CREATE TYPE "verification_purpose" AS ENUM ('EMAIL_VERIFY', 'PASSWORD_RESET', 'SHOP_EMAIL');

-- CreateEnum
CREATE TYPE "post_tier_kind" AS ENUM ('CURRENT', 'FIRST');

-- CreateEnum
CREATE TYPE "unlock_source" AS ENUM ('ADMIN', 'SYNC');

-- CreateEnum
CREATE TYPE "purchase_source" AS ENUM ('WEBHOOK', 'CSV', 'ADMIN');

-- CreateEnum
CREATE TYPE "like_kind" AS ENUM ('LIKE', 'PATREON');

-- CreateEnum
CREATE TYPE "inspiration_mode" AS ENUM ('NORMAL', 'RANDOMIZED');

-- CreateEnum
CREATE TYPE "webhook_source" AS ENUM ('KOFI', 'PATREON');

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "number" SERIAL NOT NULL,
    "email" CITEXT,
    "full_name" TEXT,
    "password_hash" TEXT,
    "patreon_id" TEXT,
    "google_id" TEXT,
    "discord_id" TEXT,
    "discord_tag" TEXT,
    "current_tier_id" TEXT,
    "kofi_current_tier" TEXT,
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "can_be_admin" BOOLEAN NOT NULL DEFAULT false,
    "mail_verified" BOOLEAN NOT NULL DEFAULT false,
    "tos_accepted" BOOLEAN NOT NULL DEFAULT false,
    "restricted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "label" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verifications" (
    "id" TEXT NOT NULL,
    "purpose" "verification_purpose" NOT NULL,
    "target" CITEXT NOT NULL,
    "user_id" TEXT,
    "code_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "last_sent_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shop_emails" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "email" CITEXT NOT NULL,
    "verified_email" CITEXT,
    "verified_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shop_emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tiers" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "amount_cents" INTEGER,
    "is_paid" BOOLEAN NOT NULL DEFAULT false,
    "can_vote" BOOLEAN NOT NULL DEFAULT false,
    "subscribe_label" TEXT,

    CONSTRAINT "tiers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "posts" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "image_key" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "paid_content" BOOLEAN NOT NULL DEFAULT true,
    "is_content" BOOLEAN NOT NULL DEFAULT true,
    "url" TEXT,
    "kofi_id" TEXT,
    "drive_file_id" TEXT,
    "file_name" TEXT,
    "file_size" BIGINT,
    "version" TEXT NOT NULL DEFAULT 'V1.0',
    "is_kofi_only" BOOLEAN NOT NULL DEFAULT false,
    "first_published_at" TIMESTAMP(3),
    "published_at" TIMESTAMP(3),
    "last_updated" TIMESTAMP(3),
    "order_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "posts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "post_tiers" (
    "post_id" TEXT NOT NULL,
    "tier_id" TEXT NOT NULL,
    "kind" "post_tier_kind" NOT NULL,

    CONSTRAINT "post_tiers_pkey" PRIMARY KEY ("post_id","tier_id","kind")
);

-- CreateTable
CREATE TABLE "unlocked_content" (
    "user_id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "source" "unlock_source" NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "unlocked_content_pkey" PRIMARY KEY ("user_id","post_id")
);

-- CreateTable
CREATE TABLE "purchases" (
    "id" TEXT NOT NULL,
    "email" CITEXT NOT NULL,
    "kofi_item_code" TEXT NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "source" "purchase_source" NOT NULL,
    "purchased_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purchases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "downloads" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "post_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "downloads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pledge_events" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "date" TIMESTAMP(3) NOT NULL,
    "tier_id" TEXT,
    "tier_title" TEXT,
    "payment_status" TEXT,

    CONSTRAINT "pledge_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "panels" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "link" TEXT NOT NULL,
    "index" INTEGER NOT NULL DEFAULT 0,
    "image_version" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "panels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inspiration_panels" (
    "id" TEXT NOT NULL,
    "image_url" TEXT NOT NULL,
    "title" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inspiration_panels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inspiration_likes" (
    "user_id" TEXT NOT NULL,
    "panel_id" TEXT NOT NULL,
    "kind" "like_kind" NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inspiration_likes_pkey" PRIMARY KEY ("user_id","panel_id","kind")
);

-- CreateTable
CREATE TABLE "inspiration_config" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "title" TEXT NOT NULL DEFAULT 'Inspiration Vote',
    "mode" "inspiration_mode" NOT NULL DEFAULT 'NORMAL',
    "voting_open" BOOLEAN NOT NULL DEFAULT false,
    "voting_end_time" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "inspiration_config_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "source" "webhook_source" NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" TEXT NOT NULL,
    "actor_id" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_limits" (
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "reset_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "job_runs" (
    "id" TEXT NOT NULL,
    "job" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "summary" JSONB,
    "error" TEXT,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "job_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_number_key" ON "users"("number");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "users_patreon_id_key" ON "users"("patreon_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_google_id_key" ON "users"("google_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_discord_id_key" ON "users"("discord_id");

-- CreateIndex
CREATE INDEX "users_full_name_idx" ON "users"("full_name");

-- CreateIndex
CREATE INDEX "users_created_at_idx" ON "users"("created_at");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- CreateIndex
CREATE INDEX "verifications_expires_at_idx" ON "verifications"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "verifications_purpose_target_key" ON "verifications"("purpose", "target");

-- CreateIndex
CREATE UNIQUE INDEX "shop_emails_verified_email_key" ON "shop_emails"("verified_email");

-- CreateIndex
CREATE INDEX "shop_emails_email_idx" ON "shop_emails"("email");

-- CreateIndex
CREATE UNIQUE INDEX "shop_emails_user_id_email_key" ON "shop_emails"("user_id", "email");

-- CreateIndex
CREATE INDEX "posts_enabled_order_date_idx" ON "posts"("enabled", "order_date");

-- CreateIndex
CREATE INDEX "posts_order_date_idx" ON "posts"("order_date");

-- CreateIndex
CREATE INDEX "posts_kofi_id_idx" ON "posts"("kofi_id");

-- CreateIndex
CREATE INDEX "posts_title_idx" ON "posts"("title");

-- CreateIndex
CREATE INDEX "post_tiers_tier_id_idx" ON "post_tiers"("tier_id");

-- CreateIndex
CREATE INDEX "unlocked_content_post_id_idx" ON "unlocked_content"("post_id");

-- CreateIndex
CREATE INDEX "purchases_email_kofi_item_code_idx" ON "purchases"("email", "kofi_item_code");

-- CreateIndex
CREATE INDEX "purchases_kofi_item_code_idx" ON "purchases"("kofi_item_code");

-- CreateIndex
CREATE UNIQUE INDEX "purchases_transaction_id_kofi_item_code_key" ON "purchases"("transaction_id", "kofi_item_code");

-- CreateIndex
CREATE INDEX "downloads_user_id_post_id_created_at_idx" ON "downloads"("user_id", "post_id", "created_at");

-- CreateIndex
CREATE INDEX "downloads_post_id_idx" ON "downloads"("post_id");

-- CreateIndex
CREATE INDEX "pledge_events_user_id_date_idx" ON "pledge_events"("user_id", "date");

-- CreateIndex
CREATE INDEX "panels_index_idx" ON "panels"("index");

-- CreateIndex
CREATE INDEX "inspiration_likes_panel_id_idx" ON "inspiration_likes"("panel_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_source_delivery_id_key" ON "webhook_deliveries"("source", "delivery_id");

-- CreateIndex
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");

-- CreateIndex
CREATE INDEX "audit_log_target_type_target_id_idx" ON "audit_log"("target_type", "target_id");

-- CreateIndex
CREATE INDEX "rate_limits_reset_at_idx" ON "rate_limits"("reset_at");

-- CreateIndex
CREATE INDEX "job_runs_job_started_at_idx" ON "job_runs"("job", "started_at");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "shop_emails" ADD CONSTRAINT "shop_emails_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_tiers" ADD CONSTRAINT "post_tiers_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_tiers" ADD CONSTRAINT "post_tiers_tier_id_fkey" FOREIGN KEY ("tier_id") REFERENCES "tiers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "unlocked_content" ADD CONSTRAINT "unlocked_content_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "unlocked_content" ADD CONSTRAINT "unlocked_content_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "downloads" ADD CONSTRAINT "downloads_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "downloads" ADD CONSTRAINT "downloads_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pledge_events" ADD CONSTRAINT "pledge_events_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inspiration_likes" ADD CONSTRAINT "inspiration_likes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inspiration_likes" ADD CONSTRAINT "inspiration_likes_panel_id_fkey" FOREIGN KEY ("panel_id") REFERENCES "inspiration_panels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_id_fkey" FOREIGN KEY ("actor_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

