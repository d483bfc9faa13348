-- Blender extensions (docs/product.md#blender-extensions): an admin marks a post as a Blender
-- add-on or theme; each version of such a post keeps its checked blender_manifest.toml, which
-- the account's Blender repository (/api/blender/index.json) lists.
CREATE TYPE "blender_extension_type" AS ENUM ('add-on', 'theme');

ALTER TABLE "posts" ADD COLUMN "blender_extension" "blender_extension_type";

ALTER TABLE "post_versions" ADD COLUMN "blender_manifest" JSONB;
