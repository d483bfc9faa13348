import { useEffect, useId, useRef } from "react";

/**
 * An accessible dialog: labelled by its title, focus moves into it, Escape closes it (when
 * `onClose` is given), and focus returns to where it was. Rendered on the server too, so it
 * works without JavaScript.
 */
export function Modal({ title, children, onClose, testId }: { title: string; children: React.ReactNode; onClose?: () => void; testId?: string }) {
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const dialog = dialogRef.current;
    const focusable = dialog?.querySelector<HTMLElement>("button, [href], input, select, textarea");
    (focusable ?? dialog)?.focus();
    function onKey(event: KeyboardEvent) {
      if (event.key === "Escape" && onClose) onClose();
      if (event.key === "Tab" && dialog) {
        // Keep keyboard focus inside the dialog.
        const items = Array.from(dialog.querySelectorAll<HTMLElement>("button:not([disabled]), [href], input, select, textarea"));
        const first = items[0];
        const last = items[items.length - 1];
        if (!first || !last) return;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }
    }
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      previous?.focus?.();
    };
  }, [onClose]);

  return (
    <div className="modal-backdrop">
      <div ref={dialogRef} className="modal" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} data-testid={testId}>
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
}
