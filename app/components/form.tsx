import { useActionData, useNavigation } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";

/** A labelled input with its error message wired up for screen readers. */
export function Field({
  label,
  name,
  error,
  hint,
  type = "text",
  ...input
}: {
  label: string;
  name: string;
  error?: string | null;
  /** A rule shown under the field from the start (before any error), and read with it. */
  hint?: string;
} & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} type={type} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A submit button that shows a pending label while its form is submitting. `pending` may be
 * passed by fetcher forms; otherwise the page navigation state for this intent is used.
 */
export function SubmitButton({
  children,
  pendingLabel,
  pending,
  intent,
  className = "button",
  ...button
}: {
  children: React.ReactNode;
  pendingLabel?: string;
  pending?: boolean;
  intent?: string;
} & React.ButtonHTMLAttributes<HTMLButtonElement>) {
  const navigation = useNavigation();
  const navigating = navigation.state === "submitting" && (intent === undefined || navigation.formData?.get("intent") === intent);
  const busy = pending ?? navigating;
  return (
    <button
      type="submit"
      className={className}
      name={intent ? "intent" : undefined}
      value={intent}
      {...button}
      disabled={busy || button.disabled}
      aria-busy={busy || undefined}
    >
      {busy ? (pendingLabel ?? "Working...") : children}
    </button>
  );
}

/**
 * A number that changes each time a submission with this intent ends in a redirect (the
 * action saved; errors answer with action data instead). Keying an uncontrolled form with it
 * empties the form after a save, as a full page load does without JavaScript, so a second
 * click cannot submit the same values again.
 */
export function useSavedKey(intent: string): number {
  const navigation = useNavigation();
  const actionData = useActionData();
  const [saved, setSaved] = useState(0);
  const submitted = useRef(false);
  useEffect(() => {
    if (navigation.state === "submitting") submitted.current = navigation.formData?.get("intent") === intent;
    else if (navigation.state === "idle" && submitted.current) {
      submitted.current = false;
      if (actionData === undefined) setSaved((count) => count + 1);
    }
  }, [navigation.state, navigation.formData, actionData, intent]);
  return saved;
}
