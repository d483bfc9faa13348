-- An admin removes a file added to a version (docs/decisions/022-version-files.md): the row stays,
-- marked removed, so the download records that name it (history, "kept" versions, the variant
-- chosen last time) stay true; it is hidden from everyone and its stored bytes are deleted.
-- Setting it is an UPDATE of version_files, which bumps the library version (migration 0060's
-- trigger), so every cached listing forgets the file.

-- AlterTable
ALTER TABLE "version_files" ADD COLUMN     "removed_at" TIMESTAMP(3);
