// Guards of UI routes: they answer a missing or insufficient sign-in with a redirect, which is
// HTTP and so stays out of the models (the `/api` guards are app/models/session.server.ts).
import { redirect } from "@remix-run/node";
import type { User } from "~/generated/prisma/client";
import { getCurrentUser, NOT_AUTHENTICATED_MESSAGE } from "~/models/session.server";
import { redirectWithError } from "~/toast.server";
import { isEffectiveAdmin } from "~/utils/entitlement";

/** The user, or a redirect to /login. */
export async function requireUser(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!user) throw redirect("/login");
  return user;
}

/** The user, or a redirect to /login with the "Not authenticated" toast (the account forms). */
export async function requireFormUser(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  // redirectWithError returns a promise: throw the Response itself, not the promise.
  if (!user) throw await redirectWithError("/login", NOT_AUTHENTICATED_MESSAGE);
  return user;
}

/**
 * For pages that manage personal tokens: the user of the cookie session, or a redirect to /login.
 * A request that carries `Authorization` is refused (403 with `sessionOnlyMessage`): a token never
 * manages tokens.
 */
export async function requireSessionPageUser(request: Request, sessionOnlyMessage: string): Promise<User> {
  if (request.headers.has("Authorization")) throw new Response(sessionOnlyMessage, { status: 403, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return requireUser(request);
}

/** An admin, or a redirect to / (spec: non-admins are redirected to /). */
export async function requireAdmin(request: Request): Promise<User> {
  const user = await getCurrentUser(request);
  if (!isEffectiveAdmin(user)) throw redirect("/");
  return user;
}
