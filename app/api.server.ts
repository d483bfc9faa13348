// Helpers for the JSON `/api` layer: every failure is `{ "error": message }` with a fitting
// status, and never a stack trace, SQL or a file path.
import { json } from "@remix-run/node";
import type { ZodType, ZodTypeDef } from "zod";
import { DomainError } from "~/models/errors";
import { DEFAULT_BODY_LIMIT } from "~/utils/body-limits";
import { isDatabaseUnavailable } from "~/utils/errors";
import { parseInput } from "~/utils/input-words";
import { errorFields, log } from "~/logger.server";

export function apiError(status: number, error: string, headers?: HeadersInit): Response {
  return json({ error }, { status, headers });
}

/** The first validation message of a failed parse: schemas carry the spec's words. */
export function firstIssue(error: { issues: { message: string }[] }): string {
  return error.issues[0]?.message ?? "Invalid input.";
}

const MAX_JSON_BYTES = DEFAULT_BODY_LIMIT;

/** `application/json`, with or without parameters such as charset. */
export function isJsonContentType(value: string | null): boolean {
  return value !== null && value.split(";")[0]!.trim().toLowerCase() === "application/json";
}

/**
 * Reads a JSON body and validates it; throws a 400 JSON error in the schema's words. A body must
 * be declared as application/json (415 otherwise): a cross-site page can send text/plain without
 * asking the browser first, but never application/json.
 */
export async function readJson<T>(request: Request, schema: ZodType<T, ZodTypeDef, unknown>): Promise<T> {
  const length = Number(request.headers.get("Content-Length") ?? 0);
  if (length > MAX_JSON_BYTES) throw apiError(413, "Request body is too large.");
  let body: unknown = {};
  const text = await request.text();
  if (text.length > MAX_JSON_BYTES) throw apiError(413, "Request body is too large.");
  if (text.length > 0 && !isJsonContentType(request.headers.get("Content-Type"))) {
    throw apiError(415, "Request body must be JSON (Content-Type: application/json).");
  }
  if (text.trim()) {
    try {
      body = JSON.parse(text);
    } catch {
      throw apiError(400, "Request body must be valid JSON.");
    }
    // PostgreSQL text cannot hold NUL characters: refuse them here instead of failing a query.
    if (/\\u0000/i.test(text)) throw apiError(400, "Request body must not contain NUL characters.");
  }
  const parsed = parseInput(schema, body);
  if (!parsed.success) throw apiError(400, firstIssue(parsed.error));
  return parsed.data;
}

/** Answers 405 for a method the resource does not take. */
export function methodNotAllowed(): Response {
  return apiError(405, "Method not allowed.");
}

/** A model's refusal as its `/api` answer: `{ "error": message }` (plus its extra fields), its status, and `Retry-After`. */
export function apiFailure(error: DomainError): Response {
  return json({ error: error.message, ...error.extra }, { status: error.status, headers: error.headers });
}

/**
 * Runs an `/api` handler: thrown Responses pass through, a model's refusal (DomainError) becomes
 * its JSON error, the database being down a 503 with `Retry-After` and the operation's own
 * failure message; anything else is logged and answered as a generic 500 with that message.
 */
export async function handleApi(failureMessage: string, handler: () => Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof Response) return error;
    if (error instanceof DomainError) return apiFailure(error);
    // Logged once per outage by app/db.server.ts, not once per request.
    if (isDatabaseUnavailable(error)) return apiError(503, failureMessage, error.headers);
    log().error(errorFields(error), failureMessage);
    return apiError(500, failureMessage);
  }
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Ids in paths are checked before use: a malformed id is a 404, not a 500. */
export function requireIdParam(value: string | undefined, notFoundMessage = "Not found."): string {
  if (!value || !ID_PATTERN.test(value)) throw apiError(404, notFoundMessage);
  return value;
}
