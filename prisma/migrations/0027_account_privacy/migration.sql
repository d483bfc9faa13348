-- Issue 15 (your library, explained and yours): account deletion and download-record retention.

-- Codes mailed to confirm deleting an account that has no password.
ALTER TYPE "verification_purpose" ADD VALUE 'ACCOUNT_DELETE';

-- Pledge records of deleted accounts, kept for accounting without anything that names the person.
CREATE TABLE "anonymised_pledges" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "date" TIMESTAMP(3) NOT NULL,
    "tier_id" TEXT,
    "tier_title" TEXT,
    "payment_status" TEXT,
    "anonymised_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "anonymised_pledges_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "anonymised_pledges_date_idx" ON "anonymised_pledges"("date");

-- The retention job deletes download records by age.
CREATE INDEX "downloads_created_at_idx" ON "downloads"("created_at");
