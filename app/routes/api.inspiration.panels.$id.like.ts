import { likeAction } from "~/api-actions.server";

/** POST /api/inspiration/panels/{id}/like: the like and its removal. */
export const action = likeAction("LIKE");
