// How actions read a posted form: one reader, driven by the zod schema of the rule the form serves
// (the schema its /api route parses JSON with, or a form-facing variant piped into it). The
// schema's object shape names the fields read: a z.array field takes every text posted under its
// name, any other field the first; an absent field is undefined, and nothing the schema does not
// name reaches it. A file posted where text is expected counts as absent, so it meets the
// schema's own message instead of becoming "[object File]".
import { z, ZodFirstPartyTypeKind, type ZodTypeAny } from "zod";
import { DomainError } from "~/utils/errors";
import { parseInput } from "~/utils/input-words";

/** What the reader hands the schema: each named field's text, or its texts for an array. */
export type FormInput = Record<string, string | string[]>;

/** The type under a field's wrappers (optional, default, preprocess, pipe, ...): is it a list? */
function innerType(schema: ZodTypeAny): ZodTypeAny {
  const def = schema._def as { typeName: ZodFirstPartyTypeKind } & Record<string, unknown>;
  switch (def.typeName) {
    case ZodFirstPartyTypeKind.ZodOptional:
    case ZodFirstPartyTypeKind.ZodNullable:
    case ZodFirstPartyTypeKind.ZodDefault:
    case ZodFirstPartyTypeKind.ZodCatch:
    case ZodFirstPartyTypeKind.ZodReadonly:
      return innerType(def.innerType as ZodTypeAny);
    case ZodFirstPartyTypeKind.ZodEffects:
      return innerType(def.schema as ZodTypeAny);
    case ZodFirstPartyTypeKind.ZodPipeline:
      return innerType(def.in as ZodTypeAny);
    case ZodFirstPartyTypeKind.ZodBranded:
      return innerType(def.type as ZodTypeAny);
    case ZodFirstPartyTypeKind.ZodLazy:
      return innerType((def.getter as () => ZodTypeAny)());
    default:
      return schema;
  }
}

/** The fields a form's schema names, each with whether it is a list (an object, or a union of objects such as one per intent). */
function fieldsOf(schema: ZodTypeAny): [string, boolean][] {
  const type = innerType(schema);
  if (type instanceof z.ZodObject) {
    return Object.entries(type.shape as Record<string, ZodTypeAny>).map(([name, field]) => [name, innerType(field) instanceof z.ZodArray]);
  }
  if (type instanceof z.ZodUnion || type instanceof z.ZodDiscriminatedUnion) return (type.options as ZodTypeAny[]).flatMap(fieldsOf);
  if (type instanceof z.ZodIntersection) {
    const { left, right } = type._def as { left: ZodTypeAny; right: ZodTypeAny };
    return [...fieldsOf(left), ...fieldsOf(right)];
  }
  throw new TypeError("A form's schema is an object (or a union of objects).");
}

const formShapes = new WeakMap<ZodTypeAny, Map<string, boolean>>();

/** The form's fields as `schema` names them, unvalidated (what a model that parses with the same schema takes). */
export function formInput(form: FormData, schema: ZodTypeAny): FormInput {
  let shape = formShapes.get(schema);
  if (!shape) {
    shape = new Map();
    for (const [name, many] of fieldsOf(schema)) shape.set(name, many || shape.get(name) === true);
    formShapes.set(schema, shape);
  }
  const input: FormInput = {};
  for (const [name, many] of shape) {
    if (many) input[name] = form.getAll(name).filter((value): value is string => typeof value === "string");
    else {
      const value = form.get(name);
      if (typeof value === "string") input[name] = value;
    }
  }
  return input;
}

/** `schema` applied to the form (see formInput): zod's answer, for actions that word a failure their own way. */
export function readForm<S extends ZodTypeAny>(form: FormData, schema: S): z.SafeParseReturnType<z.input<S>, z.output<S>> {
  return parseInput(schema, formInput(form, schema));
}

/** Field errors of a failed parse, keyed by field ("form" for the rest), first message each. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return errors;
}

/** `schema` applied to the form; a failure is a 400 refusal with the first message and each field's. */
export function parseForm<S extends ZodTypeAny>(form: FormData, schema: S): z.output<S> {
  const parsed = readForm(form, schema);
  if (!parsed.success) throw new DomainError(400, parsed.error.issues[0]!.message, { fields: fieldErrors(parsed.error) });
  return parsed.data;
}

/** A flag posted as one of `on` (a hidden field's value); absent or anything else is false. */
export function flag(...on: [string, ...string[]]) {
  return z.preprocess((value) => typeof value === "string" && on.includes(value), z.boolean());
}

/** A checkbox: "on" (a ticked box's default value) or "true" (our hidden flags) is true; absent is false. */
export const checkbox = flag("on", "true");

/** Text as typed; "" when the field is absent (or a file). */
export const text = z.string().default("");

/** A form whose only field the action reads first is its `intent` (which of the page's forms was sent). */
export const intentFormSchema = z.object({ intent: text });

const isBlank = (value: unknown) => typeof value === "string" && value.trim() === "";

/**
 * `schema` with blank text ("" or spaces) counted as absent, for forms that post "" for "none":
 * a text field's own, or every field of an object (a rule's whole schema).
 */
export function blankAsAbsent<S extends ZodTypeAny>(schema: S) {
  return z.preprocess((value) => {
    if (isBlank(value)) return undefined;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([, field]) => !isBlank(field)));
  }, schema);
}

/** The file posted as `name`, or null when absent, empty or text (uploads: their bytes are no form text). */
export function formFile(form: FormData, name: string): File | null {
  const value = form.get(name);
  return typeof value === "string" || value === null || value.size === 0 ? null : value;
}
