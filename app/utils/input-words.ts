// What a request's input is told when it has the wrong shape and its schema gives no words of its
// own: zod's defaults ("Expected string, received number", "Required") name zod's types, not the
// field. Given to every parse of a JSON body (app/api.server.ts) and of a form
// (app/utils/form-fields.ts); a schema's own messages stay.
import { defaultErrorMap, type ZodErrorMap } from "zod";

/** The JSON types zod names, as a sentence says them. */
const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  date: "a date",
  null: "null",
};

export const inputErrorMap: ZodErrorMap = (issue, context) => {
  // Given last, this map sees what the schema said: words of its own (invalid_type_error,
  // required_error) differ from zod's default, and stay.
  const zodWords = defaultErrorMap(issue, { data: context.data as unknown, defaultError: "" }).message;
  if (issue.code !== "invalid_type" || context.defaultError !== zodWords) return { message: context.defaultError };
  const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
  // The whole body is of the wrong type (an array, a string, null where an object belongs).
  if (issue.path.length === 0) return { message: `Request body must be ${expected === "an object" ? "a JSON object" : expected}.` };
  const field = issue.path.join(".");
  if (issue.received === "undefined") return { message: `${field} is required.` };
  return { message: `${field} must be ${expected}.` };
};
