// The library's two gates: the 18+ warning (adult-warning.tsx; until accepted the library is
// blurred and inert) and the terms popup shown before a download (terms-popup.tsx). Both render on
// the server, so they work without JavaScript: their forms post to the library's action, and with
// JavaScript they post there too (through a fetcher, answered with data instead of a redirect).
// The library loads both dialogs' code after its first view (on-demand.tsx); this module holds
// what the page runs at once: whether the warning was passed.
import { useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";

export const NSFW_KEYS = ["nsfwAccepted", "isNsfwAccepted"] as const;

/** True when this browser accepted the 18+ warning (local storage keys of the spec). */
export function nsfwAcceptedLocally(): boolean {
  try {
    return NSFW_KEYS.some((key) => localStorage.getItem(key) === "true");
  } catch {
    return false;
  }
}

function rememberNsfwLocally() {
  try {
    for (const key of NSFW_KEYS) localStorage.setItem(key, "true");
  } catch {
    // Private mode: the cookie still carries it.
  }
}

/**
 * Whether the visitor passed the 18+ warning, and how to pass it: remembered in local storage and
 * in the cookie (set by the library action, so the next server render is unblurred too). An
 * acceptance known only to this browser's storage is sent to the action once.
 */
export function useNsfwAcceptance(acceptedOnServer: boolean) {
  const fetcher = useFetcher();
  const [accepted, setAccepted] = useState(acceptedOnServer);
  const { submit } = fetcher;
  const accept = useCallback(() => {
    rememberNsfwLocally();
    setAccepted(true);
    submit({ intent: "accept-nsfw", respond: "json" }, { method: "post", action: "/library" });
  }, [submit]);
  useEffect(() => {
    if (!acceptedOnServer && nsfwAcceptedLocally()) accept();
  }, [acceptedOnServer, accept]);
  return { accepted, accept };
}
