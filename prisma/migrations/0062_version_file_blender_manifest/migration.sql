-- A file added to a version (variant, add-on, translation) of a post marked as a Blender extension
-- keeps its checked blender_manifest.toml, as the version's main file does, so the Blender
-- repository lists it too (docs/decisions/022-version-files.md). Files added before this are not
-- extensions the check ever read: null, left out of the listing like a version never checked.

-- AlterTable
ALTER TABLE "version_files" ADD COLUMN     "blender_manifest" JSONB;
