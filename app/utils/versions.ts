// Post versions are compared ignoring a leading "V" ("V1.2" equals "1.2"), as the spec says.

export const DEFAULT_VERSION = "V1.0";

export function normalizeVersion(version: string | null | undefined): string {
  return (version ?? "").trim().replace(/^v/i, "").trim();
}

/** The version label shown on a card: the post's own, or V1.0 when it has none. */
export function displayVersion(version: string | null | undefined): string {
  const trimmed = (version ?? "").trim();
  return trimmed ? trimmed : DEFAULT_VERSION;
}

export type DownloadStatus = "never" | "outdated" | "current";

/**
 * never: the user has no download of the post; outdated: the last downloaded version differs
 * from the post's; current: the same version, or a version missing on either side.
 */
export function downloadStatus(postVersion: string | null | undefined, downloaded: { version: string | null } | null | undefined): DownloadStatus {
  if (!downloaded) return "never";
  const mine = normalizeVersion(downloaded.version);
  const theirs = normalizeVersion(postVersion);
  if (!mine || !theirs) return "current";
  return mine === theirs ? "current" : "outdated";
}
