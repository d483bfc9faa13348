-- Issue 17, creator insights: why each download was allowed, what a shop order cost, and the
-- daily rollups the insights job keeps (app/models/insights/rollup.server.ts). The two indexes
-- on the large downloads table are built CONCURRENTLY in 0007.

CREATE TYPE "download_access" AS ENUM ('FREE', 'TIER', 'EARLY_SUPPORTER', 'PURCHASE', 'GRANT', 'ADMIN', 'UNKNOWN');

ALTER TABLE "purchases" ADD COLUMN "amount_cents" INTEGER, ADD COLUMN "currency" TEXT;

-- A constant default: PostgreSQL adds the column without rewriting the table.
ALTER TABLE "downloads" ADD COLUMN "access_source" "download_access" NOT NULL DEFAULT 'UNKNOWN';

CREATE TABLE "download_day_sources" (
    "day" DATE NOT NULL,
    "access_source" "download_access" NOT NULL,
    "downloads" INTEGER NOT NULL,
    CONSTRAINT "download_day_sources_pkey" PRIMARY KEY ("day", "access_source")
);

CREATE TABLE "download_days" (
    "day" DATE NOT NULL,
    "unique_users" INTEGER NOT NULL,
    CONSTRAINT "download_days_pkey" PRIMARY KEY ("day")
);

CREATE TABLE "download_post_days" (
    "day" DATE NOT NULL,
    "post_id" TEXT NOT NULL,
    "downloads" INTEGER NOT NULL,
    CONSTRAINT "download_post_days_pkey" PRIMARY KEY ("day", "post_id")
);

CREATE TABLE "download_post_owners" (
    "post_id" TEXT NOT NULL,
    "owners" INTEGER NOT NULL,
    CONSTRAINT "download_post_owners_pkey" PRIMARY KEY ("post_id")
);

CREATE TABLE "download_post_versions" (
    "post_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "users" INTEGER NOT NULL,
    CONSTRAINT "download_post_versions_pkey" PRIMARY KEY ("post_id", "version")
);

CREATE TABLE "insights_rollup_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "complete_through" DATE,
    "rebuilt_at" TIMESTAMP(3),
    CONSTRAINT "insights_rollup_state_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "download_post_days_post_id_day_idx" ON "download_post_days"("post_id", "day");
CREATE INDEX "purchases_purchased_at_idx" ON "purchases"("purchased_at");
CREATE INDEX "pledge_events_date_idx" ON "pledge_events"("date");

-- Earlier downloads, classified as well as the data allows, in the entitlement rule's order
-- (docs/product.md#insights): the post's and the account's state are today's, not the day's;
-- grants and purchases count only when they existed at download time; the tier is the one the
-- pledge history gave at download time. Anything else stays UNKNOWN.
UPDATE "downloads" AS d SET "access_source" = c.source
FROM (
  SELECT d2.id,
    (CASE
      WHEN u.is_admin AND NOT u.restricted THEN 'ADMIN'
      WHEN NOT p.paid_content THEN 'FREE'
      WHEN uc.source = 'ADMIN' AND uc.created_at <= d2.created_at THEN 'GRANT'
      WHEN uc.source = 'SYNC' AND uc.created_at <= d2.created_at THEN 'EARLY_SUPPORTER'
      WHEN NOT p.is_kofi_only AND pledge_then.active AND EXISTS (
        SELECT 1 FROM post_tiers pt WHERE pt.post_id = p.id AND pt.kind = 'CURRENT' AND pt.tier_id = pledge_then.tier_id) THEN 'TIER'
      WHEN NOT p.is_kofi_only AND pledge_first.active AND EXISTS (
        SELECT 1 FROM post_tiers pt WHERE pt.post_id = p.id AND pt.kind = 'FIRST' AND pt.tier_id = pledge_first.tier_id) THEN 'EARLY_SUPPORTER'
      WHEN p.kofi_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM shop_emails se JOIN purchases pu ON pu.email = se.verified_email
         WHERE se.user_id = d2.user_id AND pu.kofi_item_code = p.kofi_id AND pu.purchased_at <= d2.created_at) THEN 'PURCHASE'
      ELSE 'UNKNOWN'
    END)::"download_access" AS source
  FROM downloads d2
  JOIN posts p ON p.id = d2.post_id
  JOIN users u ON u.id = d2.user_id
  LEFT JOIN unlocked_content uc ON uc.user_id = d2.user_id AND uc.post_id = d2.post_id
  -- The latest pledge event at a date decides the tier then (pledgedTierAt in app/utils/entitlement.ts).
  LEFT JOIN LATERAL (
    SELECT pe.tier_id, (pe.type <> 'pledge_delete' AND coalesce(lower(pe.payment_status), 'paid') = 'paid') AS active
      FROM pledge_events pe WHERE pe.user_id = d2.user_id AND pe.date <= d2.created_at
     ORDER BY pe.date DESC LIMIT 1
  ) pledge_then ON TRUE
  LEFT JOIN LATERAL (
    SELECT pe.tier_id, (pe.type <> 'pledge_delete' AND coalesce(lower(pe.payment_status), 'paid') = 'paid') AS active
      FROM pledge_events pe WHERE pe.user_id = d2.user_id AND pe.date <= p.first_published_at
     ORDER BY pe.date DESC LIMIT 1
  ) pledge_first ON TRUE
) AS c
WHERE c.id = d.id;
