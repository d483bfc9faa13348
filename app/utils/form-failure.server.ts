// Maps a model's refusal to what a UI form answers, so the no-JS post and the `useFetcher` post
// get the same words. A DomainError keeps its status, message and field messages; anything else
// is an unexpected failure: logged, and answered with the operation's own failure message.
import { DomainError, isDatabaseUnavailable } from "~/utils/errors";
import { errorFields, log } from "~/logger.server";

export type FormRefusal = {
  status: number;
  message: string;
  fields: Record<string, string>;
  headers: Record<string, string>;
  /** The refusal's extra fields (`details`, `summary`), for the admin tools that show them. */
  extra: DomainError["extra"];
};

export function formRefusal(error: unknown, failureMessage: string): FormRefusal {
  if (error instanceof Response) throw error;
  if (error instanceof DomainError) {
    return { status: error.status, message: error.message, fields: error.fields, headers: error.headers, extra: error.extra };
  }
  // The database is down: the same words, a 503 and when to try again (the outage is logged once, app/db.server.ts).
  if (isDatabaseUnavailable(error)) return { status: 503, message: failureMessage, fields: {}, headers: error.headers, extra: {} };
  log().error(errorFields(error), failureMessage);
  return { status: 500, message: failureMessage, fields: {}, headers: {}, extra: {} };
}
