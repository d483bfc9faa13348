// The /admin action's answer for one tool: the fetcher's (with JavaScript) or the page's own
// action data (a plain form post); with `toast`, a toast when a fetcher answer arrives.
import type { FetcherWithComponents } from "@remix-run/react";
import { useEffect } from "react";
import type { AdminActionData } from "~/components/admin/action-data";
import { showToast } from "~/components/toaster";

export function useIntentAnswer<Intent extends AdminActionData["intent"]>(
  fetcher: FetcherWithComponents<AdminActionData>,
  fallback: AdminActionData | null | undefined,
  intent: Intent,
  toast?: (data: Extract<AdminActionData, { intent: Intent }>) => string | null,
): Extract<AdminActionData, { intent: Intent }> | null {
  const data = fetcher.data ?? fallback ?? null;
  const answer = data?.intent === intent ? (data as Extract<AdminActionData, { intent: Intent }>) : null;
  const fresh = fetcher.state === "idle" ? fetcher.data : undefined;

  useEffect(() => {
    if (!toast || !fresh || fresh.intent !== intent) return;
    const message = fresh.error ?? toast(fresh as Extract<AdminActionData, { intent: Intent }>);
    if (message) showToast({ type: fresh.error ? "error" : "success", message });
    // Once per answer: the fetcher's data object changes with each submission.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fresh]);

  return answer;
}
