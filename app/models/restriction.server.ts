// Restricted accounts (set by an admin) keep only what protects the account itself: signing
// out and changing or setting the password. Every other action is refused, not only downloads.
import { apiError } from "~/api.server";
import type { User } from "~/generated/prisma/client";
import { requireApiUser } from "~/models/session.server";

export const RESTRICTED_MESSAGE = "Your account is restricted.";

export function isRestricted(user: Pick<User, "restricted"> | null): boolean {
  return user?.restricted === true;
}

/** For `/api` routes that act for the user: the user, or a thrown 401 / 403 JSON error. */
export async function requireActiveApiUser(request: Request): Promise<User> {
  const user = await requireApiUser(request);
  if (user.restricted) throw apiError(403, RESTRICTED_MESSAGE);
  return user;
}
