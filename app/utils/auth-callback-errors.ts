// The errors a provider sign-in may send to /auth/callback: a short code in the address, the
// words chosen here. The page shows only these, so a crafted `?error=` cannot put text of an
// attacker's choosing on our page.
export const CALLBACK_ERRORS = {
  access_denied: "The sign-in was cancelled or refused at the provider.",
  provider_error: "The provider could not complete the sign-in. Please try again.",
  not_configured: "Sign-in with this provider is not configured.",
  state_mismatch: "The sign-in could not be matched to this browser (state). Please allow cookies and try again.",
  rate_limited: "Too many attempts. Please try again in a few minutes.",
  already_linked: "This provider account is already linked to another account.",
  email_linked: "An account with this email is already linked to another account of this provider.",
  email_taken: "An account with this email already exists. Please sign in to it first.",
  restricted: "Your account is restricted.",
  email_unproven: "Please verify your email address before linking anything to your account.",
  failed: "Could not sign in. Please try again.",
} as const;

export type CallbackErrorCode = keyof typeof CALLBACK_ERRORS;

export function isCallbackErrorCode(code: string | null | undefined): code is CallbackErrorCode {
  return typeof code === "string" && Object.hasOwn(CALLBACK_ERRORS, code);
}

/** The message of a known code; anything else gets the generic failure. */
export function callbackErrorMessage(code: string | null): string | null {
  if (code === null) return null;
  return isCallbackErrorCode(code) ? CALLBACK_ERRORS[code] : CALLBACK_ERRORS.failed;
}
