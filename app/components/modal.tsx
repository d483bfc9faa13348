import { useEffect, useId, useRef } from "react";

/** What keyboard focus can land on: hidden fields, disabled controls and tabindex="-1" are left out. */
const FOCUSABLE = [
  "a[href]",
  "button:not([disabled])",
  'input:not([type="hidden"]):not([disabled])',
  "select:not([disabled])",
  "textarea:not([disabled])",
  '[tabindex]:not([tabindex="-1"])',
].join(", ");

function focusableIn(dialog: HTMLElement): HTMLElement[] {
  return Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((element) => !element.hidden && element.tabIndex >= 0);
}

/**
 * Makes everything on the page but `keep` (and its ancestors) inert: not focusable, not
 * clickable, hidden from assistive technology. Answers how to undo it; elements that were inert
 * already are left as they were.
 */
function inertAllBut(keep: HTMLElement): () => void {
  const changed: HTMLElement[] = [];
  for (let node: HTMLElement | null = keep; node && node !== document.body; node = node.parentElement) {
    const parent: HTMLElement | null = node.parentElement;
    if (!parent) break;
    for (const sibling of Array.from<Element>(parent.children)) {
      if (sibling === node || !(sibling instanceof HTMLElement) || sibling.inert || sibling.tagName === "SCRIPT") continue;
      sibling.inert = true;
      changed.push(sibling);
    }
  }
  return () => {
    for (const element of changed) element.inert = false;
  };
}

/**
 * An accessible dialog: labelled by its title, focus moves into it and stays there (Tab and
 * Shift+Tab cycle through its controls), the rest of the page is inert while it is open, Escape
 * closes it (when `onClose` is given), and focus returns to where it was. Rendered on the server
 * too, so it works without JavaScript.
 */
export function Modal({ title, children, onClose, testId }: { title: string; children: React.ReactNode; onClose?: () => void; testId?: string }) {
  const titleId = useId();
  const backdropRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  // The latest onClose, so a parent's new function on each render does not reopen the dialog
  // (which would move focus back to its first control).
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const dialog = dialogRef.current;
    const backdrop = backdropRef.current;
    if (!dialog || !backdrop) return;
    const previous = document.activeElement as HTMLElement | null;
    const restore = inertAllBut(backdrop);
    (focusableIn(dialog)[0] ?? dialog).focus();

    function onKey(event: KeyboardEvent) {
      if (event.key === "Escape" && onCloseRef.current) onCloseRef.current();
      if (event.key !== "Tab" || !dialog) return;
      const items = focusableIn(dialog);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) {
        event.preventDefault();
        dialog.focus();
        return;
      }
      const active = document.activeElement;
      const inside = active instanceof HTMLElement && items.includes(active);
      if (event.shiftKey && (!inside || active === first)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (!inside || active === last)) {
        event.preventDefault();
        first.focus();
      }
    }
    // Focus that gets out anyway (a script, the browser's own find) is brought back.
    function onFocusIn(event: FocusEvent) {
      if (dialog && event.target instanceof Node && !dialog.contains(event.target)) (focusableIn(dialog)[0] ?? dialog).focus();
    }
    document.addEventListener("keydown", onKey);
    document.addEventListener("focusin", onFocusIn);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("focusin", onFocusIn);
      restore();
      previous?.focus?.();
    };
  }, []);

  return (
    <div ref={backdropRef} className="modal-backdrop">
      <div ref={dialogRef} className="modal" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} data-testid={testId}>
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
}
