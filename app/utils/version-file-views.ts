// A version's files as the post page, the library listing, the cards and the API show them
// (docs/api.md#files-of-a-version): pure shaping over stored rows, with each file's access from the
// entitlement rule for that file (`explainFileAccess`); nothing here restates the rule.
import { explainFileAccess, hasOwnGate, type EntitlementPost, type EntitlementViewer, type FileGate } from "~/utils/entitlement";
import type { FileRoleName } from "~/utils/version-file-words";

type StoredRole = "VARIANT" | "OPTIONAL" | "TRANSLATION";

/** A stored role by its name in the API and on pages. */
export const ROLE_NAMES: Record<StoredRole, FileRoleName> = { VARIANT: "variant", OPTIONAL: "optional", TRANSLATION: "translation" };
/** Roles in the order pages list them. */
const ROLE_ORDER: FileRoleName[] = ["main", "variant", "optional", "translation"];

/** What shaping needs of a stored added file (a version_files row). */
export type StoredFile = {
  id: string;
  role: StoredRole;
  label: string;
  fileName: string;
  size: number | bigint;
  sha256: string;
  gateTierIds: string[];
  gateShopItem: string | null;
};

/** A file's own gate, or null when it has the post's. */
export function gateOf(file: Pick<StoredFile, "gateTierIds" | "gateShopItem"> | null): FileGate {
  if (!file) return null;
  const gate = { tierIds: file.gateTierIds, shopItem: file.gateShopItem };
  return hasOwnGate(gate) ? gate : null;
}

/** A file of a version as the post page, the listing and the API show it (docs/api.md#post-files). */
export type FileView = {
  /** Null for the main file (downloads name no file then). */
  fileId: string | null;
  role: FileRoleName;
  label: string;
  fileName: string;
  size: number;
  sha256: string | null;
  /** The file's own gate; null: the post's. */
  gate: { tierIds: string[]; shopItem: string | null } | null;
  /** May this viewer download it now (the entitlement rule for this file)? */
  unlocked: boolean;
};

export type MainFile = { fileName: string; size: number | bigint; sha256: string | null };

/**
 * A version's files, main first, then by role and position, each with whether `viewer` may
 * download it now: `explainFileAccess`, the rule every download asks.
 */
export function fileViews(post: EntitlementPost, main: MainFile, files: readonly StoredFile[], viewer: EntitlementViewer | null, now: Date): FileView[] {
  const views: FileView[] = [
    {
      fileId: null,
      role: "main",
      label: "",
      fileName: main.fileName,
      size: Number(main.size),
      sha256: main.sha256,
      gate: null,
      unlocked: explainFileAccess(post, null, viewer, now).allowed,
    },
  ];
  for (const file of files) {
    const gate = gateOf(file);
    views.push({
      fileId: file.id,
      role: ROLE_NAMES[file.role],
      label: file.label,
      fileName: file.fileName,
      size: Number(file.size),
      sha256: file.sha256,
      gate: gate ? { tierIds: [...gate.tierIds], shopItem: gate.shopItem } : null,
      unlocked: explainFileAccess(post, gate, viewer, now).allowed,
    });
  }
  return views.sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role));
}
