// The one error a model throws when it refuses a change (also thrown by the request helpers in
// app/utils, so it lives here and models re-export it). It carries what every caller needs to
// answer in the spec's words: the HTTP status the `/api` layer uses, the message the user sees,
// the message of each form field that failed, and how long to wait when the refusal is a limit.
// Models never build HTTP responses themselves: `/api` routes map this with `apiFailure`
// (app/api.server.ts) and UI actions with `formFailure` (app/utils/form-failure.server.ts).

export type DomainErrorOptions = {
  /** For forms: the message of each field that failed, by field name. */
  fields?: Record<string, string>;
  /** For refusals that pass with time (rate limits, a busy pool): answered as `Retry-After`. */
  retryAfterSeconds?: number;
  /** A machine-readable reason, for callers that choose their own words (provider sign-in codes). */
  code?: string;
  /** What a few admin operations answer beside `error` (docs/api.md: `details`, `summary`). */
  extra?: { details?: string; summary?: unknown };
};

export class DomainError extends Error {
  readonly fields: Record<string, string>;
  readonly retryAfterSeconds: number | undefined;
  readonly code: string | undefined;
  readonly extra: { details?: string; summary?: unknown };

  constructor(
    readonly status: number,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = "DomainError";
    this.fields = options.fields ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.code = options.code;
    this.extra = options.extra ?? {};
  }

  /** The headers a refusal carries: `Retry-After` for a limit (429) or a busy service (503). */
  get headers(): Record<string, string> {
    return this.retryAfterSeconds === undefined ? {} : { "Retry-After": String(Math.max(1, Math.ceil(this.retryAfterSeconds))) };
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/** How long a client is told to wait (`Retry-After`) while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 15;
/** What a page says while the database is unreachable (docs/messages.md). */
export const SITE_UNAVAILABLE_MESSAGE = "The site is briefly unavailable. Please try again in a minute.";

/**
 * What a database call throws instead of the driver's error while the database cannot be reached
 * (stopped, restarting, refusing connections): app/db.server.ts. It has the shape of a Remix
 * route error response (status, statusText, internal, data) and is no Error on purpose: Remix
 * then answers any page or resource route with its 503, and a page's error boundary sees it as
 * such on the server and in the browser alike (an Error would reach the browser as "Unexpected
 * Server Error" with a 500). `/api` handlers and forms answer it with their own failure message.
 */
export class DatabaseUnavailable {
  readonly name = "DatabaseUnavailable";
  readonly status = 503;
  readonly statusText = "Service Unavailable";
  readonly internal = false;
  readonly data = { error: SITE_UNAVAILABLE_MESSAGE };
  readonly retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS;
  readonly message: string;

  constructor(readonly reason: string) {
    this.message = `database unavailable: ${reason}`;
  }

  get headers(): Record<string, string> {
    return { "Retry-After": String(this.retryAfterSeconds) };
  }
}

/** Recognised by shape as well: the production build holds this module twice (the app and the server bundles). */
export function isDatabaseUnavailable(error: unknown): error is DatabaseUnavailable {
  return error instanceof DatabaseUnavailable || (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "DatabaseUnavailable");
}
