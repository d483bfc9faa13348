-- Issue 16, item 5: updates that reach the user. Per account a private Atom feed token (stored
-- hashed), two email opt-ins (both off), the digest's unsubscribe token, and a ledger of what a
-- digest already announced (one row per user, kind and subject), so a retried run mails nobody twice.
-- CreateEnum
CREATE TYPE "update_kind" AS ENUM ('NEW_VERSION', 'NEW_POST');

-- CreateTable
CREATE TABLE "update_subscriptions" (
    "user_id" TEXT NOT NULL,
    "feed_token_hash" TEXT,
    "feed_token_created_at" TIMESTAMP(3),
    "notify_new_versions" BOOLEAN NOT NULL DEFAULT false,
    "notify_new_posts" BOOLEAN NOT NULL DEFAULT false,
    "new_versions_since" TIMESTAMP(3),
    "new_posts_since" TIMESTAMP(3),
    "unsubscribe_token" TEXT NOT NULL,
    "unsubscribed_at" TIMESTAMP(3),
    "last_digest_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "update_subscriptions_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "update_mail_ledger" (
    "user_id" TEXT NOT NULL,
    "kind" "update_kind" NOT NULL,
    "subject_id" TEXT NOT NULL,
    "mailed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "update_mail_ledger_pkey" PRIMARY KEY ("user_id","kind","subject_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "update_subscriptions_feed_token_hash_key" ON "update_subscriptions"("feed_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "update_subscriptions_unsubscribe_token_key" ON "update_subscriptions"("unsubscribe_token");

-- AddForeignKey
ALTER TABLE "update_subscriptions" ADD CONSTRAINT "update_subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "update_mail_ledger" ADD CONSTRAINT "update_mail_ledger_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

