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
