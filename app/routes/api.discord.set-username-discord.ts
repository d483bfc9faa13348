import { setUsernameAction } from "~/api-actions.server";

/** POST /api/discord/set-username-discord: the username step after a first Discord sign-in. */
export const action = setUsernameAction("Username set successfully! Your account is now verified.");
