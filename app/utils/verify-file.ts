// "Verify a file": the words it answers (docs/messages.md) and the one rule that picks
// the answer from a picked file's hashes and the post's versions. Shared by the browser component
// and its tests.

export const VERIFY_MESSAGES = {
  versionsFailed: "Could not load this post's versions. Please try again.",
  noVersions: "This post has no version to compare with yet.",
  readFailed: "Could not read this file. Please try again.",
  noMatch: "Does not match any version",
  needsJavaScript: "Verifying a file needs JavaScript: your browser reads and hashes the file, nothing is uploaded.",
  loading: "Loading the check...",
  loadFailed: "Could not load the check. Close and open this again to retry.",
} as const;

export type KnownVersion = { id: string; label: string; contentHash: string; sha256: string | null; current: boolean };

export type Verdict = { kind: "genuine" | "older"; label: string } | { kind: "none" };

/**
 * What a file with `contentHash` is: the current version, an older one, or none. The content hash
 * leaves a ZIP's comment out, so a stamped paid download verifies like its stored file.
 */
export function verdictFor(contentHash: string, versions: KnownVersion[]): Verdict {
  const hash = contentHash.toLowerCase();
  const matches = versions.filter((version) => version.contentHash.toLowerCase() === hash);
  // One file may have been uploaded twice (as an old and as the current version): current wins.
  const match = matches.find((version) => version.current) ?? matches[0];
  if (!match) return { kind: "none" };
  return { kind: match.current ? "genuine" : "older", label: match.label };
}

/** The sentence shown for a verdict: "Genuine V2.1", "This is V1.0, an older version", or no match. */
export function verdictText(verdict: Verdict): string {
  if (verdict.kind === "genuine") return `Genuine ${verdict.label}`;
  if (verdict.kind === "older") return `This is ${verdict.label}, an older version`;
  return VERIFY_MESSAGES.noMatch;
}
