// The user an admin typed into a picker (Check access): an account id, a leak-trace number
// (`123` or `#123`), an email, or the start of an email or name as the admin user search reads
// it. One match is the user; several are offered to choose from; none is refused.
import { db } from "~/db.server";
import { searchUsers } from "~/models/admin-users.server";
import { DomainError } from "~/models/errors";
import { userSearchSchema } from "~/utils/admin-schemas";

export const USER_PICK_MESSAGES = {
  userNotFound: "User not found.",
} as const;

export type PickedUser = { id: string; number: number; label: string; email: string | null };
export type UserPick = { user: PickedUser; candidates: null } | { user: null; candidates: PickedUser[] };

const CANDIDATES = 8;
const INT_MAX = 2_147_483_647;

const picked = (user: { id: string; number: number; email: string | null; fullName: string | null }): PickedUser => ({
  id: user.id,
  number: user.number,
  email: user.email,
  label: user.fullName ?? user.email ?? `#${user.number}`,
});

const fields = { id: true, number: true, email: true, fullName: true } as const;

/** The account with this id, as a picker shows it; null when there is none. */
export async function pickedUserById(id: string): Promise<PickedUser | null> {
  const user = await db.user.findUnique({ where: { id }, select: fields });
  return user ? picked(user) : null;
}

/** How a picker field names a picked user so that the search finds them again: the email, or the number. */
export function pickedUserRef(user: PickedUser): string {
  return user.email ?? `#${user.number}`;
}

export async function pickUser(typed: string): Promise<UserPick> {
  const ref = userSearchSchema.shape.search.parse(typed);
  if (!ref) throw new DomainError(404, USER_PICK_MESSAGES.userNotFound);
  const byId = await db.user.findUnique({ where: { id: ref }, select: fields });
  if (byId) return { user: picked(byId), candidates: null };
  const number = /^#?(\d{1,10})$/.exec(ref)?.[1];
  if (number && Number(number) <= INT_MAX) {
    const byNumber = await db.user.findUnique({ where: { number: Number(number) }, select: fields });
    if (byNumber) return { user: picked(byNumber), candidates: null };
  }
  // An exact email (citext: any case) wins over the accounts whose email merely starts with it.
  const byEmail = ref.includes("@") ? await db.user.findUnique({ where: { email: ref }, select: fields }) : null;
  if (byEmail) return { user: picked(byEmail), candidates: null };
  const { users } = await searchUsers({ search: ref, page: 1, pageSize: CANDIDATES });
  const found = users.map((user) => picked({ id: user.id, number: user.number, email: user.email, fullName: user.fullName }));
  if (found.length === 0) throw new DomainError(404, USER_PICK_MESSAGES.userNotFound);
  return found.length === 1 ? { user: found[0]!, candidates: null } : { user: null, candidates: found };
}
