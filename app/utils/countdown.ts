// The voting countdown and the rule for when voting is closed; pure, shared by server and browser.

export type CountdownParts = { days: number; hours: number; minutes: number; seconds: number };

/** Whole days, hours, minutes and seconds left until `end`; all zero once it has passed. */
export function countdownParts(end: Date | number, now: Date | number): CountdownParts {
  const left = Math.max(0, Math.floor((Number(end) - Number(now)) / 1000));
  return {
    days: Math.floor(left / 86_400),
    hours: Math.floor((left % 86_400) / 3_600),
    minutes: Math.floor((left % 3_600) / 60),
    seconds: left % 60,
  };
}

/** Voting is open while the admin's flag is on and the end time (if any) is still ahead. */
export function isVotingOpen(config: { votingOpen: boolean; votingEndTime: Date | string | null }, now: Date | number = Date.now()): boolean {
  if (!config.votingOpen) return false;
  if (config.votingEndTime === null) return true;
  return new Date(config.votingEndTime).getTime() > Number(now);
}

/** What a like count shows: hidden as '?' (or '?+1' for one's own like) in randomized mode while open. */
export function likeLabel(likes: number | null, userHasLiked: boolean): string {
  if (likes === null) return userHasLiked ? "?+1" : "?";
  return String(likes);
}

/** A stable per-visitor order: panels sorted by a hash of (seed, panel id). */
export function shuffleForVisitor<T extends { id: string }>(items: T[], seed: string): T[] {
  const keyed = items.map((item) => ({ item, key: fnv1a(`${seed}:${item.id}`) }));
  keyed.sort((a, b) => a.key - b.key || (a.item.id < b.item.id ? -1 : 1));
  return keyed.map((entry) => entry.item);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < text.length; position++) {
    hash ^= text.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
