// Restricted accounts (set by an admin) keep only what protects the account itself: signing
// out and changing or setting the password. Every other action is refused, not only downloads.
import type { User } from "~/generated/prisma/client";
import { DomainError } from "~/models/errors";
import { requireApiUser } from "~/models/session.server";

export const RESTRICTED_MESSAGE = "Your account is restricted.";

export function isRestricted(user: Pick<User, "restricted"> | null): boolean {
  return user?.restricted === true;
}

/** For `/api` routes that act for the user: the user, or a refusal (401, or 403 when restricted). */
export async function requireActiveApiUser(request: Request): Promise<User> {
  const user = await requireApiUser(request);
  if (user.restricted) throw new DomainError(403, RESTRICTED_MESSAGE);
  return user;
}
