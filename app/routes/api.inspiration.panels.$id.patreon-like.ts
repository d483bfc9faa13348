import { likeAction } from "~/api-actions.server";

/** POST /api/inspiration/panels/{id}/patreon-like: the Patreon like and its removal. */
export const action = likeAction("PATREON");
