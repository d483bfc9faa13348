// The user editor's draft: every change stays in the page until Save. Revalidations bring a new
// user object and leave the draft as it is, except the unlocked content: what the server added or
// removed since (Unlock objects, a sync) is folded in without losing the admin's own picks.
import { useEffect, useRef, useState } from "react";

export type EditorShopEmail = { email: string; emailVerified: boolean };

export type EditorUser = {
  _id: string;
  id: string;
  number: number;
  email: string | null;
  fullName: string | null;
  patreonId: string | null;
  discordTag: string | null;
  current_tier: string | null;
  current_tier_title: string | null;
  kofi_current_tier: string | null;
  hasPatreon: boolean;
  hasGoogle: boolean;
  hasDiscord: boolean;
  hasPassword: boolean;
  isAdmin: boolean;
  canBeAdmin: boolean;
  mailVerified: boolean;
  tosAccepted: boolean;
  restricted: boolean;
  kofiEmails: EditorShopEmail[];
  unlocked_content: string[];
  downloads: { _id: string; postId: string; postTitle: string; version: string; date: string }[];
  pledge_history: {
    pledgeId: string;
    amount_cents: number;
    date: string;
    tier_title: string | null;
    tier_id: string | null;
    payment_status: string | null;
  }[];
};

export type EditorPost = { postId: string; title: string; enabled: boolean; paid_content: boolean };
export type EditorTier = { tierId: string; title: string };

export type Draft = {
  fullName: string;
  email: string;
  restricted: boolean;
  canBeAdmin: boolean;
  isAdmin: boolean;
  current_tier: string;
  unlocked_content: string[];
  kofiEmails: EditorShopEmail[];
};

function draftOf(user: EditorUser): Draft {
  return {
    fullName: user.fullName ?? "",
    email: user.email ?? "",
    restricted: user.restricted,
    canBeAdmin: user.canBeAdmin,
    isAdmin: user.isAdmin,
    current_tier: user.current_tier ?? "",
    unlocked_content: user.unlocked_content,
    kofiEmails: user.kofiEmails,
  };
}

export type DraftUpdate = <K extends keyof Draft>(key: K, value: Draft[K]) => void;

/**
 * `posted`: the fields as a plain (no-JavaScript) post of the form sent them, drawn again unsaved
 * (the shop emails are the server's: the post changed one of them).
 */
export function useUserDraft(user: EditorUser, posted?: Omit<Draft, "kofiEmails">): { draft: Draft; update: DraftUpdate; dirty: boolean } {
  const [draft, setDraft] = useState<Draft>(() => ({ ...draftOf(user), ...posted }));
  const serverUnlocks = useRef(user.unlocked_content);

  useEffect(() => {
    const before = new Set(serverUnlocks.current);
    const now = new Set(user.unlocked_content);
    serverUnlocks.current = user.unlocked_content;
    const added = user.unlocked_content.filter((postId) => !before.has(postId));
    const removed = new Set([...before].filter((postId) => !now.has(postId)));
    if (added.length === 0 && removed.size === 0) return;
    setDraft((current) => ({
      ...current,
      unlocked_content: [
        ...current.unlocked_content.filter((postId) => !removed.has(postId)),
        ...added.filter((postId) => !current.unlocked_content.includes(postId)),
      ],
    }));
  }, [user.unlocked_content]);

  const update: DraftUpdate = (key, value) => setDraft((current) => ({ ...current, [key]: value }));
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(user));
  return { draft, update, dirty };
}
