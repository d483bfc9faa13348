// The name a post's file is saved as: the post's title and the version served, with the stored
// file's extension (`neon-streetwear-set-v2.1.zip`), whatever name it was uploaded under, so every
// download of every post reads the same way in a supporter's folder.
import { displayVersion } from "~/utils/versions";

export function downloadFileName(title: string, version: string | null, storedName: string): string {
  const slug =
    title
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80)
      .replace(/-+$/, "") || "post";
  const label = displayVersion(version)
    .toLowerCase()
    .replace(/^v?/, "v")
    .replace(/[^a-z0-9._-]+/g, "-");
  const extension = /\.[A-Za-z0-9]{1,10}$/.exec(storedName)?.[0].toLowerCase() ?? "";
  return `${slug}-${label}${extension}`;
}
