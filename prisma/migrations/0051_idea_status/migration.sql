-- Ideas carry a status (docs/product.md#idea-status): open and planned ones are in the live round,
-- a shipped one has left it and can no longer be liked. Shipped exactly while linked to its post,
-- so the ideas already linked are shipped.
CREATE TYPE "idea_status" AS ENUM ('OPEN', 'PLANNED', 'SHIPPED');

ALTER TABLE "inspiration_panels" ADD COLUMN "status" "idea_status" NOT NULL DEFAULT 'OPEN';

UPDATE "inspiration_panels" SET "status" = 'SHIPPED' WHERE "post_id" IS NOT NULL;
