// What the forms show before anything is sent: kept apart from the zod schema files (which
// re-export them), so a page that only shows a hint loads no zod (docs/benchmarks.md, first load).

/** The password rules as shown under a new password's field before anything is typed. */
export const PASSWORD_RULE_HINT = "At least 8 characters and 1 uppercase.";
export const RESET_PASSWORD_RULE_HINT = "At least 8 characters, 1 uppercase and 1 special character (!@#$%^&*).";
/** Seconds between two verification codes for one shop email. */
export const RESEND_COOLDOWN_SECONDS = 60;
/** The image types a home panel takes. */
export const PANEL_IMAGE_ACCEPT = ".png,.jpg,.jpeg,image/png,image/jpeg";
