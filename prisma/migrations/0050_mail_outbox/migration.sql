-- The mail outbox (docs/decisions/018-mail-outbox.md): every mail the app sends is a row here,
-- written in the transaction of the change that causes it, then claimed by one sender at a time
-- (FOR UPDATE SKIP LOCKED), sent, and retried with backoff until sent or given up at
-- `give_up_at`. `idempotency_key` is unique, so enqueueing the same message again is a no-op.
-- CreateEnum
CREATE TYPE "outbox_mail_status" AS ENUM ('PENDING', 'SENDING', 'SENT', 'GIVEN_UP');

-- CreateTable
CREATE TABLE "mail_outbox" (
    "id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "topic" TEXT,
    "user_id" TEXT,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "headers" JSONB,
    "status" "outbox_mail_status" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claim_token" TEXT,
    "claimed_until" TIMESTAMP(3),
    "give_up_at" TIMESTAMP(3) NOT NULL,
    "last_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMP(3),
    "gave_up_at" TIMESTAMP(3),

    CONSTRAINT "mail_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mail_outbox_idempotency_key_key" ON "mail_outbox"("idempotency_key");

-- CreateIndex
CREATE INDEX "mail_outbox_status_next_attempt_at_idx" ON "mail_outbox"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "mail_outbox_topic_idx" ON "mail_outbox"("topic");

-- CreateIndex
CREATE INDEX "mail_outbox_user_id_idx" ON "mail_outbox"("user_id");

-- CreateIndex
CREATE INDEX "mail_outbox_created_at_idx" ON "mail_outbox"("created_at");

-- AddForeignKey
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

