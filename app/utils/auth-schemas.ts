// Account rules written once, in the spec's words, shared by forms, actions and `/api` routes.
import { z } from "zod";

export const PASSWORD_RULE_MESSAGE = "Password must have at least 8 characters and 1 uppercase.";
export const RESET_PASSWORD_RULE_MESSAGE = "Password must have at least 8 characters, 1 uppercase, and 1 special character.";
export { RESET_PASSWORD_RULE_HINT } from "~/utils/form-hints";
export const SIGN_UP_MISMATCH_MESSAGE = "Passwords do not match. Please try again.";
export const MISMATCH_MESSAGE = "Passwords do not match.";
export const USERNAME_MESSAGE = "Please enter a valid username.";
export const FORGOT_EMAIL_MESSAGE = "Please enter your email.";
export const FILL_ALL_FIELDS_MESSAGE = "Please fill all fields.";
export const EMAIL_MESSAGE = "Please enter a valid email.";
export const MAX_PASSWORD_LENGTH = 200;
export const NO_LOGIN_CODE_MESSAGE = "No authorization code found. Please try logging in again.";

/** Minimum 8 characters and one uppercase letter (sign-up, change, set). */
export function meetsPasswordRule(password: string): boolean {
  return password.length >= 8 && /[A-Z]/.test(password);
}

/** The reset flow also wants one special character from !@#$%^&*. */
export function meetsResetPasswordRule(password: string): boolean {
  return meetsPasswordRule(password) && /[!@#$%^&*]/.test(password);
}

const text = z.preprocess((value) => (value === null || value === undefined ? "" : value), z.string());

// Length first: a failed max() stops the pipe before the email pattern runs on a huge string.
export const emailField = text.pipe(z.string().trim().toLowerCase().min(1, EMAIL_MESSAGE).max(254, EMAIL_MESSAGE)).pipe(z.string().email(EMAIL_MESSAGE));

export const passwordField = text.pipe(z.string().max(MAX_PASSWORD_LENGTH, PASSWORD_RULE_MESSAGE).refine(meetsPasswordRule, PASSWORD_RULE_MESSAGE));

export const resetPasswordField = text.pipe(
  z.string().max(MAX_PASSWORD_LENGTH, RESET_PASSWORD_RULE_MESSAGE).refine(meetsResetPasswordRule, RESET_PASSWORD_RULE_MESSAGE),
);

export const usernameField = text.pipe(z.string().trim().min(1, USERNAME_MESSAGE).max(60, "Username must have at most 60 characters."));

const codeField = text.pipe(
  z
    .string()
    .trim()
    .regex(/^\d{6}$/, "Please enter the 6-digit code from the mail."),
);

/** The one-time code of a provider sign-in: the /auth/callback form and POST /api/auth/callback. */
export const providerLoginCodeSchema = z.object({
  code: z.string({ required_error: NO_LOGIN_CODE_MESSAGE }).min(1, NO_LOGIN_CODE_MESSAGE).max(200),
});

export const loginSchema = z.object({
  email: emailField,
  password: text.pipe(z.string().min(1, "Please enter your password.").max(MAX_PASSWORD_LENGTH, "Invalid email or password.")),
});

/** POST /api/auth/register. */
export const registerSchema = z.object({ email: emailField, password: passwordField });

/** The sign-up form also asks for the confirmation. */
export const signUpFormSchema = z.object({ email: emailField, password: text, confirmPassword: text }).superRefine((value, ctx) => {
  if (value.password !== value.confirmPassword) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["confirmPassword"], message: SIGN_UP_MISMATCH_MESSAGE });
  } else if (!passwordField.safeParse(value.password).success) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["password"], message: PASSWORD_RULE_MESSAGE });
  }
});

export const verifyEmailSchema = z.object({ email: emailField, code: codeField });

/** The unverified email user's form: username and code together. */
export const verifyEmailFormSchema = z.object({ username: usernameField, code: codeField });

export const usernameSchema = z.object({ username: usernameField });

export const resendSchema = z.object({ email: emailField });

export const changePasswordSchema = z.object({
  currentPassword: text.pipe(z.string().min(1, "Please enter your current password.").max(MAX_PASSWORD_LENGTH)),
  newPassword: passwordField,
});

export const changePasswordFormSchema = z.object({ currentPassword: text, newPassword: text, confirmPassword: text }).superRefine((value, ctx) => {
  if (value.newPassword !== value.confirmPassword) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["confirmPassword"], message: MISMATCH_MESSAGE });
    return;
  }
  const parsed = changePasswordSchema.safeParse(value);
  if (!parsed.success) parsed.error.issues.forEach((issue) => ctx.addIssue(issue));
});

export const setPasswordSchema = z.object({ newPassword: passwordField });

export const setPasswordFormSchema = z.object({ newPassword: text, confirmPassword: text }).superRefine((value, ctx) => {
  if (value.newPassword !== value.confirmPassword) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["confirmPassword"], message: MISMATCH_MESSAGE });
  } else if (!passwordField.safeParse(value.newPassword).success) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["newPassword"], message: PASSWORD_RULE_MESSAGE });
  }
});

export const forgotPasswordSchema = z.object({
  email: text.pipe(z.string().trim().toLowerCase().min(1, FORGOT_EMAIL_MESSAGE).max(254, EMAIL_MESSAGE).email(EMAIL_MESSAGE)),
});

/** Reset: every field is required first, then the stricter password rule. */
export const resetPasswordSchema = z
  .object({ email: text, code: text, newPassword: text })
  .superRefine((value, ctx) => {
    if (!value.email.trim() || !value.code.trim() || !value.newPassword) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: FILL_ALL_FIELDS_MESSAGE });
      return;
    }
    for (const [field, schema] of [
      ["email", emailField],
      ["code", codeField],
      ["newPassword", resetPasswordField],
    ] as const) {
      const parsed = schema.safeParse(value[field]);
      if (!parsed.success) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: parsed.error.issues[0]!.message });
    }
  })
  .transform((value) => ({ email: value.email.trim().toLowerCase(), code: value.code.trim(), newPassword: value.newPassword }));
