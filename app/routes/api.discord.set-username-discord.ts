import { setUsernameAction } from "~/api-actions.server";
import { usernameStepMessage } from "~/models/account.server";

/** POST /api/discord/set-username-discord: the username step after a first Discord sign-in. */
export const action = setUsernameAction(usernameStepMessage);
