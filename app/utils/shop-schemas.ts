// Validation rules of the shop-email and support-platform flows, written once and shared by the
// forms, the actions and the /api routes. Messages are docs/messages.md's, word for word.
import { z } from "zod";
import { boundedEmail } from "~/utils/email-shape";

export const SHOP_MESSAGES = {
  verifyFailed: "Failed to verify email.",
  resendFailed: "Failed to resend verification code.",
  cancelFailed: "Failed to cancel verification.",
  sendFailed: "Failed to send verification code.",
  resent: "Verification code resent to your email.",
  canceled: "Verification process canceled.",
  sent: "Verification code sent to your email.",
  verified: "Email verified successfully.",
  emptyEmail: "Ko-fi email cannot be empty.",
  invalidEmail: "Invalid email format.",
  emailTaken: "This email is already verified by another account.",
  alreadyLinked: "This email is already linked to your account.",
  pendingExists: "Finish or cancel the pending verification before linking another email.",
  wrongCode: "Invalid or expired verification code.",
  noPending: "No pending verification for this email.",
  cooldown: "Please wait before requesting another code.",
} as const;

/** A shop email: trimmed, lower-cased, non-empty, basic shape. */
export const emailSchema = boundedEmail(SHOP_MESSAGES.emptyEmail, SHOP_MESSAGES.invalidEmail).transform((value) => value.toLowerCase());

export const shopEmailSchema = z.object({ email: emailSchema });

export const shopEmailCodeSchema = z.object({
  email: emailSchema,
  code: z.string({ required_error: SHOP_MESSAGES.wrongCode }).trim().min(1, SHOP_MESSAGES.wrongCode).max(32, SHOP_MESSAGES.wrongCode),
});

export const unlockObjectsUserSchema = z.object({
  userId: z.string({ required_error: "No user selected", invalid_type_error: "No user selected" }).trim().min(1, "No user selected"),
});

export const SHOP_INTENTS = ["link", "verify", "resend", "cancel"] as const;
export type ShopIntent = (typeof SHOP_INTENTS)[number];
