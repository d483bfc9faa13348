// What a refused /login form answers (the route's action data), read by each form of the page.
import { useActionData } from "@remix-run/react";

/** The action data of a refused /login form: its intent, the messages by field, the typed email. */
export type AccountActionResult = { intent: string; errors: Record<string, string>; email?: string };

function useResult(intent: string): AccountActionResult | undefined {
  const data = useActionData<AccountActionResult>();
  return data && data.intent === intent ? data : undefined;
}

/** The messages of the form that posted `intent` (empty for the other forms). */
export function useErrors(intent: string): Record<string, string> {
  return useResult(intent)?.errors ?? {};
}

/** The email a refused login or sign-up sent, to put back in its field. */
export function useSentEmail(intent: string): string | undefined {
  return useResult(intent)?.email;
}

export function FormError({ message }: { message?: string }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}
