// A part of a long card that folds (a native <details>): the summary is a button to the keyboard
// (Enter, Space) and works without JavaScript. The open state is the admin's once the page is
// shown: a revalidation after a save never folds what they are working in.
import { useState, type ReactNode } from "react";

export function FoldingSection({
  title,
  heading,
  hint,
  initiallyOpen,
  testId,
  children,
}: {
  title: string;
  /**
   * Makes the title a heading of that level, for a section that belongs to the page's outline (the
   * user editor's histories). Without it the title is plain text: inside a card whose one heading
   * is its own title (the admin post card), a summary is announced as a button anyway.
   */
  heading?: "h2" | "h3";
  /** A short line beside the title that says what is inside while it is folded. */
  hint?: ReactNode;
  initiallyOpen: boolean;
  testId?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  const Title = heading ?? "span";
  return (
    <details className="card-section card-collapsible" open={open} onToggle={(event) => setOpen(event.currentTarget.open)} data-testid={testId}>
      <summary>
        <Title className="folding-title">{title}</Title>
        {hint ? <span className="muted folding-hint">{hint}</span> : null}
      </summary>
      {children}
    </details>
  );
}
