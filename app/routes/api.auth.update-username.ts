import { setUsernameAction } from "~/api-actions.server";

/** POST /api/auth/update-username: a signed-in user changes their username. */
export const action = setUsernameAction("Username updated.");
