import { setUsernameAction } from "~/api-actions.server";

/** POST /api/google/set-username-google: the username step after a first Google sign-in. */
export const action = setUsernameAction("Username set successfully! Your account is now verified.");
