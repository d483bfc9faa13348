import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DomainError } from "~/utils/errors";
import { blankAsAbsent, checkbox, flag, formFile, formInput, parseForm, readForm, text } from "~/utils/form-fields";

function formWith(entries: [string, string | File][]): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

const file = new File(["not text"], "evil.txt", { type: "text/plain" });

/** The refusal parseForm throws. */
function refusalOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("parseForm did not refuse");
}

describe("reading a posted form through its schema", () => {
  it("reads only the fields the schema names: the first text of each, every text of a list, files left out", () => {
    const schema = z.object({ intent: z.string(), email: z.string().optional(), tiers: z.array(z.string()), title: text });
    const form = formWith([
      ["email", file],
      ["intent", "login"],
      ["intent", "ignored"],
      ["tiers", "a"],
      ["tiers", file],
      ["tiers", "b"],
      ["unnamed", "never read"],
    ]);
    expect(formInput(form, schema)).toEqual({ intent: "login", tiers: ["a", "b"] });
    expect(parseForm(form, schema)).toEqual({ intent: "login", tiers: ["a", "b"], title: "" });
  });

  it("gives an absent list as empty, and an absent optional text as undefined", () => {
    const schema = z.object({ tags: z.array(z.string()).max(2), label: z.string().trim().optional() });
    expect(parseForm(formWith([]), schema)).toEqual({ tags: [], label: undefined });
    expect(parseForm(formWith([["label", "  Gold  "]]), schema)).toEqual({ tags: [], label: "Gold" });
  });

  it("turns checkboxes and flags into booleans: ticked or 'true' is true, absent or anything else false", () => {
    const schema = z.object({ restricted: checkbox, isAdmin: checkbox, paid: checkbox, respond: flag("json") });
    expect(
      parseForm(
        formWith([
          ["restricted", "on"],
          ["isAdmin", "true"],
          ["paid", "yes"],
          ["respond", "json"],
        ]),
        schema,
      ),
    ).toEqual({
      restricted: true,
      isAdmin: true,
      paid: false,
      respond: true,
    });
    expect(parseForm(formWith([["restricted", file]]), schema)).toEqual({ restricted: false, isAdmin: false, paid: false, respond: false });
  });

  it("counts blank text as absent where the schema says so", () => {
    const schema = z.object({ patchId: blankAsAbsent(z.string().trim().optional()) });
    expect(parseForm(formWith([["patchId", "   "]]), schema)).toEqual({ patchId: undefined });
    expect(parseForm(formWith([["patchId", " p1 "]]), schema)).toEqual({ patchId: "p1" });
    // Over a rule's whole schema: every blank field is absent, so it meets the rule's own "absent" meaning.
    const rule = blankAsAbsent(z.object({ versionId: z.string().optional(), verdict: z.enum(["works", "broken"], { message: "Pick an answer." }) }));
    expect(
      parseForm(
        formWith([
          ["versionId", ""],
          ["verdict", "works"],
        ]),
        rule,
      ),
    ).toEqual({ verdict: "works" });
    expect(
      refusalOf(() =>
        parseForm(
          formWith([
            ["versionId", "v1"],
            ["verdict", " "],
          ]),
          rule,
        ),
      ).fields,
    ).toEqual({ verdict: "Pick an answer." });
  });

  it("reads the fields of every branch of a union and through a form-facing variant piped into the rule's schema", () => {
    const rule = z.object({ amount_cents: z.number({ invalid_type_error: "Enter the price in cents." }).int() });
    const formRule = z
      .object({ amount: text })
      .transform(({ amount }) => ({ amount_cents: Number(amount) * 100 }))
      .pipe(rule);
    expect(parseForm(formWith([["amount", "4"]]), formRule)).toEqual({ amount_cents: 400 });
    expect(refusalOf(() => parseForm(formWith([["amount", "four"]]), formRule)).message).toBe("Enter the price in cents.");

    const byIntent = z.discriminatedUnion("intent", [
      z.object({ intent: z.literal("tags"), tags: z.array(z.string()) }),
      z.object({ intent: z.literal("toggle"), enabled: checkbox }),
    ]);
    expect(
      parseForm(
        formWith([
          ["intent", "tags"],
          ["tags", "a"],
          ["tags", "b"],
        ]),
        byIntent,
      ),
    ).toEqual({ intent: "tags", tags: ["a", "b"] });
    expect(
      parseForm(
        formWith([
          ["intent", "toggle"],
          ["enabled", "true"],
        ]),
        byIntent,
      ),
    ).toEqual({ intent: "toggle", enabled: true });
    expect(readForm(formWith([["intent", "other"]]), byIntent).success).toBe(false);
  });

  it("meets a file posted where text is expected with the schema's own message, never its name as text; a failure is a 400 with each field's message", () => {
    const schema = z.object({
      email: z.string({ required_error: "Email is required." }).email("Please enter a valid email address."),
      name: z.string({ required_error: "Give the tag a name." }).min(1, "Give the tag a name."),
    });
    expect(
      parseForm(
        formWith([
          ["email", "a@example.com"],
          ["name", "Gold"],
        ]),
        schema,
      ),
    ).toEqual({ email: "a@example.com", name: "Gold" });
    const refusal = refusalOf(() =>
      parseForm(
        formWith([
          ["email", file],
          ["name", file],
        ]),
        schema,
      ),
    );
    expect(refusal.status).toBe(400);
    expect(refusal.message).toBe("Email is required.");
    expect(refusal.fields).toEqual({ email: "Email is required.", name: "Give the tag a name." });
    expect(JSON.stringify(formInput(formWith([["email", file]]), schema))).not.toContain("object File");
  });

  it("reads an upload's file, not text, as a file", () => {
    expect(formFile(formWith([["image", file]]), "image")).toBe(file);
    expect(formFile(formWith([["image", "a.png"]]), "image")).toBeNull();
    expect(formFile(formWith([["image", new File([], "empty.png")]]), "image")).toBeNull();
  });
});
