import { setToastCookieOptions } from "remix-toast";
import { env } from "~/env.server";

let configured = false;

/** Signs the toast flash cookie with our own secrets (remix-toast's default secret is public). */
export function configureToasts() {
  if (configured) return;
  configured = true;
  setToastCookieOptions({ secrets: env().SESSION_SECRET, secure: env().APP_URL.startsWith("https://") });
}

configureToasts();

export {
  jsonWithError,
  jsonWithSuccess,
  redirectWithError,
  redirectWithSuccess,
  redirectWithInfo,
} from "remix-toast";
