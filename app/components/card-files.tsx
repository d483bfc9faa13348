// A library card's added files of the current version (docs/product.md#files-of-a-version): one line
// each, "Variant: Alpha · unlocked by Tier 2", its access worded on the server by the entitlement
// rule for that file. A card with a main file only gets none. No client-side logic.
import type { CardFile } from "~/models/version-files.server";
import { FILE_ROLE_NAMES } from "~/utils/version-file-words";

export function CardFiles({ files }: { files: readonly CardFile[] | undefined }) {
  if (!files || files.length === 0) return null;
  return (
    <ul className="post-requirements post-files" aria-label="Files" data-testid="card-files">
      {files.map((file, index) => (
        <li key={index}>
          {FILE_ROLE_NAMES[file.role]}: {file.name} · {file.access}
        </li>
      ))}
    </ul>
  );
}
