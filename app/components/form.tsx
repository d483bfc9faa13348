import { useNavigation } from "@remix-run/react";
import { useId } from "react";

/** A labelled input with its error message wired up for screen readers. */
export function Field({
  label,
  name,
  error,
  type = "text",
  ...input
}: { label: string; name: string; error?: string | null } & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...input}
      />
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
  const navigating =
    navigation.state === "submitting" && (intent === undefined || navigation.formData?.get("intent") === intent);
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
