import { setUsernameAction } from "~/api-actions.server";
import { usernameStepMessage } from "~/models/account.server";

/** POST /api/google/set-username-google: the username step after a first Google sign-in. */
export const action = setUsernameAction(usernameStepMessage);
