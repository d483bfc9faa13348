// How actions read a posted form: as text, and through the zod schema of the rule they serve
// (the same schema the /api route parses its JSON with). A file posted where text is expected
// counts as absent, so it meets the schema's own message instead of becoming "[object File]".
import type { ZodError, ZodType, ZodTypeDef } from "zod";
import { DomainError } from "~/utils/errors";

/** The text posted as `name` ("" when absent or a file). */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

/** The text posted as `name`, or undefined when absent or a file (a field left out of an edit). */
export function formOptionalText(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" ? value : undefined;
}

/** Every text posted as `name` (repeated checkboxes, lists), files left out. */
export function formTexts(form: FormData, name: string): string[] {
  return form.getAll(name).filter((value): value is string => typeof value === "string");
}

/** Was `name` posted as `value` ("true" by default: the hidden flags and checkboxes of our forms)? */
export function formFlag(form: FormData, name: string, value = "true"): boolean {
  return form.get(name) === value;
}

/** The file posted as `name`, or null when absent, empty or text. */
export function formFile(form: FormData, name: string): File | null {
  const value = form.get(name);
  return typeof value === "string" || value === null || value.size === 0 ? null : value;
}

/** The form's text fields by name (the first value of each), files left out. */
export function formFields(form: FormData): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === "string" && !(name in fields)) fields[name] = value;
  return fields;
}

/** Field errors of a failed parse, keyed by field ("form" for the rest), first message each. */
export function fieldErrors(error: ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return errors;
}

/** `schema` applied to the form's text fields; a failure is a 400 refusal with each field's message. */
export function parseForm<T>(form: FormData, schema: ZodType<T, ZodTypeDef, unknown>): T {
  return parseFields(schema, formFields(form));
}

/** `schema` applied to values gathered from a form; a failure is a 400 refusal with each field's message. */
export function parseFields<T>(schema: ZodType<T, ZodTypeDef, unknown>, values: Record<string, unknown>): T {
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw new DomainError(400, parsed.error.issues[0]!.message, { fields: fieldErrors(parsed.error) });
  return parsed.data;
}
