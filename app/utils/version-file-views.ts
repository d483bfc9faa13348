// A version's files as the post page, the library listing, the cards and the API show them
// (docs/api.md#files-of-a-version): pure shaping over stored rows, with each file's access from the
// entitlement rule for that file (`explainFileAccess`); nothing here restates the rule.
import { explainFileAccess, hasOwnGate, type AccessExplanation, type EntitlementPost, type EntitlementViewer, type FileGate } from "~/utils/entitlement";
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

/** A post as the rule sees it, with the rule's explanation of it for one viewer at one instant (the listing's). */
export type ExplainedPost = { entitlement: EntitlementPost; explanation: AccessExplanation };

/** A file as shown, with the rule's explanation of it for the viewer (what its card line says). */
export type ExplainedFile = { view: FileView; gate: FileGate; explanation: AccessExplanation };

/**
 * A version's files, main first, then by role and position, each with whether `viewer` may
 * download it at `now` and why: `explainFileAccess`, the rule every download asks. A file with
 * the post's gate is the post itself, so it takes the post's explanation, which `post` holds for
 * this viewer and instant (the rule is not asked again).
 */
export function explainFiles(post: ExplainedPost, main: MainFile, files: readonly StoredFile[], viewer: EntitlementViewer | null, now: Date): ExplainedFile[] {
  const explain = (gate: FileGate) => explainFileAccess(post.entitlement, gate, viewer, now, post.explanation);
  const explained: ExplainedFile[] = [
    {
      view: {
        fileId: null,
        role: "main",
        label: "",
        fileName: main.fileName,
        size: Number(main.size),
        sha256: main.sha256,
        gate: null,
        unlocked: post.explanation.allowed,
      },
      gate: null,
      explanation: post.explanation,
    },
  ];
  for (const file of files) {
    const gate = gateOf(file);
    const explanation = explain(gate);
    explained.push({
      view: {
        fileId: file.id,
        role: ROLE_NAMES[file.role],
        label: file.label,
        fileName: file.fileName,
        size: Number(file.size),
        sha256: file.sha256,
        gate: gate ? { tierIds: [...gate.tierIds], shopItem: gate.shopItem } : null,
        unlocked: explanation.allowed,
      },
      gate,
      explanation,
    });
  }
  return explained.sort((a, b) => ROLE_ORDER.indexOf(a.view.role) - ROLE_ORDER.indexOf(b.view.role));
}

/** `explainFiles` as shown: each file with whether the viewer may download it. */
export function fileViews(post: ExplainedPost, main: MainFile, files: readonly StoredFile[], viewer: EntitlementViewer | null, now: Date): FileView[] {
  return explainFiles(post, main, files, viewer, now).map((file) => file.view);
}
