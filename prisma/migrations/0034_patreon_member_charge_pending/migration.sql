-- A member state whose last charge is still pending: active (the pledge has not ended) but it
-- gives no tier yet. At the same instant a paid state then replaces it, and it never replaces a
-- paid or ended one (app/models/patreon-membership.server.ts). Existing rows were paid or ended.
ALTER TABLE "patreon_member_states" ADD COLUMN "charge_pending" BOOLEAN NOT NULL DEFAULT false;
