// What a request's input is told when it has the wrong shape and its schema gives no words of its
// own: zod's defaults ("Expected string, received number", "Required", "Invalid input") name zod's
// types, not the field. Every parse of a request's input goes through parseInput: a JSON body
// (app/api.server.ts), a form (app/utils/form-fields.ts), and what a model checks itself; a
// schema's own messages stay.
import { defaultErrorMap, type z, type ZodErrorMap, type ZodTypeAny } from "zod";

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

const inputErrorMap: ZodErrorMap = (issue, context) => {
  // Given last, this map sees what the schema said: words of its own (invalid_type_error,
  // required_error, a check's message) differ from zod's default, and stay.
  const zodWords = defaultErrorMap(issue, { data: context.data as unknown, defaultError: "" }).message;
  if (context.defaultError !== zodWords) return { message: context.defaultError };
  const field = issue.path.join(".");
  switch (issue.code) {
    case "invalid_type": {
      const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      // The whole body is of the wrong type (an array, a string, null where an object belongs).
      if (issue.path.length === 0) return { message: `Request body must be ${expected === "an object" ? "a JSON object" : expected}.` };
      if (issue.received === "undefined") return { message: `${field} is required.` };
      return { message: `${field} must be ${expected}.` };
    }
    case "invalid_enum_value":
      return { message: `${field} must be one of: ${issue.options.join(", ")}.` };
    case "unrecognized_keys": {
      const where = field ? ` in ${field}` : "";
      return { message: `Unknown field${issue.keys.length > 1 ? "s" : ""}${where}: ${issue.keys.join(", ")}.` };
    }
    case "invalid_union": {
      // Either shape would do and neither fits: the words of the one the input came closest to
      // (its first problem lies deepest), already given by this map.
      const closest = issue.unionErrors
        .map((error) => error.issues[0])
        .filter((first) => first !== undefined)
        .sort((a, b) => b.path.length - a.path.length)[0];
      return { message: closest?.message ?? context.defaultError };
    }
    default:
      return { message: context.defaultError };
  }
};

/** `schema` applied to a request's input, with these words for input of the wrong shape. */
export function parseInput<S extends ZodTypeAny>(schema: S, input: unknown): z.SafeParseReturnType<z.input<S>, z.output<S>> {
  return schema.safeParse(input, { errorMap: inputErrorMap });
}
