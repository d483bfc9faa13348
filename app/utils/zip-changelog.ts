// What changed between two versions of a ZIP post, file by file: shown under the creator's
// notes in the version history. Pure, so it runs wherever the entry lists are.

export type ChangelogEntry = { path: string; size: number; crc32: number };

export type Changelog = {
  added: ChangelogEntry[];
  removed: ChangelogEntry[];
  /** Same path, other content (size or CRC-32 differ): before and after. */
  changed: { path: string; before: ChangelogEntry; after: ChangelogEntry }[];
};

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export function zipChangelog(before: readonly ChangelogEntry[], after: readonly ChangelogEntry[]): Changelog {
  const old = new Map(before.map((entry) => [entry.path, entry]));
  const next = new Map(after.map((entry) => [entry.path, entry]));
  const changelog: Changelog = { added: [], removed: [], changed: [] };
  for (const entry of next.values()) {
    const previous = old.get(entry.path);
    if (!previous) changelog.added.push(entry);
    else if (previous.size !== entry.size || previous.crc32 !== entry.crc32) changelog.changed.push({ path: entry.path, before: previous, after: entry });
  }
  for (const entry of old.values()) if (!next.has(entry.path)) changelog.removed.push(entry);
  changelog.added.sort(byPath);
  changelog.removed.sort(byPath);
  changelog.changed.sort(byPath);
  return changelog;
}
