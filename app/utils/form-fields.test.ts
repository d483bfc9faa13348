import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DomainError } from "~/utils/errors";
import { formFields, formFile, formFlag, formOptionalText, formText, formTexts, parseForm } from "~/utils/form-fields";

function formWith(entries: [string, string | File][]): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

const file = new File(["not text"], "evil.txt", { type: "text/plain" });

describe("reading a posted form", () => {
  it("reads text fields, and takes a file where text is expected for an absent field, never its name as text", () => {
    const form = formWith([
      ["email", file],
      ["intent", "login"],
      ["tiers", "a"],
      ["tiers", file],
      ["tiers", "b"],
    ]);
    expect(formText(form, "email")).toBe("");
    expect(formOptionalText(form, "email")).toBeUndefined();
    expect(formText(form, "intent")).toBe("login");
    expect(formTexts(form, "tiers")).toEqual(["a", "b"]);
    expect(formFields(form)).toEqual({ intent: "login", tiers: "a" });
    expect(formFile(form, "email")).toBe(file);
    expect(formFile(form, "intent")).toBeNull();
    expect(formFlag(formWith([["on", "true"]]), "on")).toBe(true);
    expect(formFlag(formWith([["on", "yes"]]), "on")).toBe(false);
  });

  it("parses through the rule's schema, and a failure is a 400 with each field's message", () => {
    const schema = z.object({ email: z.string({ required_error: "Email is required." }).email("Please enter a valid email address.") });
    expect(parseForm(formWith([["email", "a@example.com"]]), schema)).toEqual({ email: "a@example.com" });
    let refusal: unknown;
    try {
      parseForm(formWith([["email", file]]), schema);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).status).toBe(400);
    expect((refusal as DomainError).message).toBe("Email is required.");
    expect((refusal as DomainError).fields).toEqual({ email: "Email is required." });
  });
});
