import { useEffect, useRef, useState } from "react";

export const TOAST_DURATION_MS = 5000;

export type ToastMessage = { message: string; type: "success" | "error" | "info" | "warning"; description?: string };

type ShownToast = ToastMessage & { key: number };

let nextKey = 1;
const listeners = new Set<(toast: ShownToast) => void>();

/** Shows a toast from client code (fetcher results); server flashes arrive through the root loader. */
export function showToast(toast: ToastMessage) {
  const shown = { ...toast, key: nextKey++ };
  for (const listener of listeners) listener(shown);
}

/**
 * The toast region. Each toast closes 5 s after it appears: by a timer with JavaScript, and by
 * a CSS animation with the same delay when JavaScript is off.
 */
export function Toaster({ toast }: { toast: ToastMessage | null }) {
  const [toasts, setToasts] = useState<ShownToast[]>(() => (toast ? [{ ...toast, key: 0 }] : []));
  const firstToast = useRef(toast);

  useEffect(() => {
    const remove = (key: number) => setToasts((current) => current.filter((item) => item.key !== key));
    const listener = (shown: ShownToast) => {
      setToasts((current) => [...current.filter((item) => item.message !== shown.message), shown]);
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

  return (
    <div className="toaster" role="status" aria-live="polite">
      {toasts.map((item) => (
        <div key={item.key} className={`toast toast-${item.type}`} data-testid="toast">
          <span>{item.message}</span>
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
