-- Release mails (docs/product.md#releases): the opt-in "a post opening to my tier, at once", and
-- since when, like the digests' opt-ins.
ALTER TABLE "update_subscriptions" ADD COLUMN "notify_releases" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "releases_since" TIMESTAMP(3);
