import { useEffect, useRef, useState } from "react";

export const TOAST_DURATION_MS = 5000;
/** More than this many at once is noise: the oldest give way to the newest. */
export const TOAST_LIMIT = 3;

export type ToastMessage = {
  message: string;
  type: "success" | "error" | "info" | "warning";
  description?: string;
  /** A toast with an id is one toast that updates: a later toast with the same id takes its place. */
  id?: string;
};

type ShownToast = ToastMessage & { key: number };

let nextKey = 1;
const listeners = new Set<(toast: ShownToast) => void>();

/** Shows a toast from client code (fetcher results); server flashes arrive through the root loader. */
export function showToast(toast: ToastMessage) {
  const shown = { ...toast, key: nextKey++ };
  for (const listener of listeners) listener(shown);
}

/**
 * The toasts after `incoming` arrives: a toast with the same id is updated where it stands (its
 * text and type change, it does not move), an identical message replaces the one shown (so it is
 * never shown twice), and only the newest TOAST_LIMIT stay.
 */
export function addToast<T extends ToastMessage>(current: T[], incoming: T, limit = TOAST_LIMIT): T[] {
  const same = incoming.id === undefined ? -1 : current.findIndex((item) => item.id === incoming.id);
  if (same >= 0) {
    const others = current.map((item, index) => (index === same ? incoming : item));
    return others.filter((item, index) => index === same || item.message !== incoming.message).slice(-limit);
  }
  return [...current.filter((item) => item.message !== incoming.message), incoming].slice(-limit);
}

/** Inline errors and alerts the page shows right now (outside the toasts themselves). */
function inlineMessages(toaster: Element | null): Set<string> {
  const texts = new Set<string>();
  for (const element of document.querySelectorAll(".form-error, .field-error, [role='alert']")) {
    if (toaster?.contains(element)) continue;
    const text = element.textContent?.trim();
    if (text) texts.add(text);
  }
  return texts;
}

/**
 * The toast region. Each toast closes 5 s after it appears: by a timer with JavaScript, and by
 * a CSS animation with the same delay when JavaScript is off. A message the page already shows
 * inline (a form's error) is not toasted as well: the inline one is next to its cause.
 */
export function Toaster({ toast }: { toast: ToastMessage | null }) {
  const [toasts, setToasts] = useState<ShownToast[]>(() => (toast ? [{ ...toast, key: 0 }] : []));
  const [hydrated, setHydrated] = useState(false);
  const firstToast = useRef(toast);
  const region = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setHydrated(true);
    const remove = (key: number) => setToasts((current) => current.filter((item) => item.key !== key));
    const listener = (shown: ShownToast) => {
      setToasts((current) => addToast(current, shown));
      setTimeout(() => remove(shown.key), TOAST_DURATION_MS);
    };
    listeners.add(listener);
    // The toast rendered with the page closes 5 s after hydration at the latest.
    const first = setTimeout(() => remove(0), TOAST_DURATION_MS);
    return () => {
      listeners.delete(listener);
      clearTimeout(first);
    };
  }, []);

  // A flash toast that arrives with a client-side navigation (not the one rendered with the page).
  useEffect(() => {
    if (toast && toast !== firstToast.current) showToast(toast);
    firstToast.current = null;
  }, [toast]);

  // Runs after each commit, when the inline error that came with the same answer is on the page.
  useEffect(() => {
    if (toasts.length === 0) return;
    const inline = inlineMessages(region.current);
    if (toasts.some((item) => inline.has(item.message.trim()))) {
      setToasts((current) => current.filter((item) => !inline.has(item.message.trim())));
    }
  }, [toasts]);

  return (
    <div ref={region} className="toaster" role="status" aria-live="polite" data-hydrated={hydrated ? "" : undefined}>
      {toasts.map((item) => (
        <div key={item.key} className={`toast toast-${item.type}`} data-testid="toast">
          <span className="toast-message">{item.message}</span>
          <button
            type="button"
            className="toast-close"
            aria-label="Close notification"
            onClick={() => setToasts((current) => current.filter((other) => other.key !== item.key))}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
