-- CreateEnum
CREATE TYPE "sign_up_method" AS ENUM ('PASSWORD', 'PATREON', 'GOOGLE', 'DISCORD');

-- CreateEnum
CREATE TYPE "email_proof" AS ENUM ('CODE', 'PATREON', 'GOOGLE', 'DISCORD');

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "email_verified_by" "email_proof",
ADD COLUMN     "sign_up_method" "sign_up_method" NOT NULL DEFAULT 'PASSWORD';

-- CreateTable
CREATE TABLE "patreon_member_states" (
    "patreon_user_id" TEXT NOT NULL,
    "state_at" TIMESTAMP(3) NOT NULL,
    "active" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "patreon_member_states_pkey" PRIMARY KEY ("patreon_user_id")
);

-- Backfill (hand-written). How existing accounts were created is inferred: a password means
-- sign-up by email; otherwise the provider it has (Google, Discord, Patreon).
UPDATE "users" SET "sign_up_method" = CASE
    WHEN "password_hash" IS NOT NULL THEN 'PASSWORD'::"sign_up_method"
    WHEN "google_id" IS NOT NULL THEN 'GOOGLE'::"sign_up_method"
    WHEN "discord_id" IS NOT NULL THEN 'DISCORD'::"sign_up_method"
    WHEN "patreon_id" IS NOT NULL THEN 'PATREON'::"sign_up_method"
    ELSE 'PASSWORD'::"sign_up_method" END;
-- Verified addresses of email accounts were proved by a code. An unverified provider account's
-- address was stored only when the provider asserted it as verified.
UPDATE "users" SET "email_verified_by" = CASE
    WHEN "email" IS NULL THEN NULL
    WHEN "sign_up_method" = 'PASSWORD' AND "mail_verified" THEN 'CODE'::"email_proof"
    WHEN "sign_up_method" = 'GOOGLE' THEN 'GOOGLE'::"email_proof"
    WHEN "sign_up_method" = 'DISCORD' THEN 'DISCORD'::"email_proof"
    WHEN "sign_up_method" = 'PATREON' THEN 'PATREON'::"email_proof"
    ELSE NULL END;
