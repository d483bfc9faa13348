// Actions that more than one documented /api address runs, differing only in a word: each route
// file names its address and its difference, and the work is written once here.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import type { LikeKind, User } from "~/generated/prisma/client";
import { setUsername } from "~/models/account.server";
import { INSPIRATION_PANEL_NOT_FOUND_MESSAGE, setLike } from "~/models/inspiration.server";
import { getCurrentUser, requireApiUser } from "~/models/session.server";
import { usernameSchema } from "~/utils/auth-schemas";
import { likeRequestSchema } from "~/utils/inspiration-schemas";

/** POST: sets the signed-in user's username; `message` is what this address answers on success (or makes it from the updated account). */
export function setUsernameAction(message: string | ((updated: User) => string)) {
  return function action({ request }: ActionFunctionArgs) {
    if (request.method !== "POST") return methodNotAllowed();
    return handleApi("Failed to set username.", async () => {
      const user = await requireApiUser(request);
      const { username } = await readJson(request, usernameSchema);
      const updated = await setUsername(user, username);
      return json({ message: typeof message === "string" ? message : message(updated), fullName: updated.fullName, mailVerified: updated.mailVerified });
    });
  };
}

/** POST: likes or unlikes a panel with one kind of like. Body {like: boolean} sets the state; none toggles. */
export function likeAction(kind: LikeKind) {
  return function action({ request, params }: ActionFunctionArgs) {
    if (request.method !== "POST") return methodNotAllowed();
    return handleApi("Failed to toggle like.", async () => {
      const id = requireIdParam(params.id, INSPIRATION_PANEL_NOT_FOUND_MESSAGE);
      const user = await getCurrentUser(request);
      const { like } = await readJson(request, likeRequestSchema);
      return json(await setLike(user, id, kind, like));
    });
  };
}
