-- Personal API tokens expire 90 days after creation (API_TOKEN_LIFETIME_DAYS in
-- app/models/api-token.server.ts); the default covers rows inserted by hand. Timestamps are UTC,
-- as Prisma writes them. Tokens that exist already get their 90 days from this migration on, so
-- no script stops working without notice. Housekeeping deletes expired rows by the index.
-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "expires_at" TIMESTAMP(3) NOT NULL DEFAULT (timezone('UTC'::text, now()) + '90 days'::interval);

-- CreateIndex
CREATE INDEX "api_tokens_expires_at_idx" ON "api_tokens"("expires_at");
