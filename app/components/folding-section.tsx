// A part of a long card that folds (a native <details>): the summary is a button to the keyboard
// and works without JavaScript. The open state is the admin's once the page is shown: a
// revalidation after a save never folds what they are working in.
import { useState, type ReactNode } from "react";

export function FoldingSection({
  title,
  hint,
  initiallyOpen,
  testId,
  children,
}: {
  title: string;
  /** A short line beside the title that says what is inside while it is folded. */
  hint?: ReactNode;
  initiallyOpen: boolean;
  testId?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <details className="card-section card-collapsible" open={open} onToggle={(event) => setOpen(event.currentTarget.open)} data-testid={testId}>
      <summary>
        {/* Not a heading: inside a summary (a button) it would be announced as one anyway, and the
            card's one heading stays its title. */}
        <span className="folding-title">{title}</span>
        {hint ? <span className="muted folding-hint">{hint}</span> : null}
      </summary>
      {children}
    </details>
  );
}
