import { z } from "zod";
import { parseInput } from "./input-words";

const messageOf = (schema: z.ZodTypeAny, input: unknown) => {
  const parsed = parseInput(schema, input);
  return parsed.success ? null : parsed.error.issues[0]!.message;
};

describe("the words for input of the wrong shape", () => {
  const body = z.object({ email: z.string(), count: z.number().int(), notify: z.boolean(), tags: z.array(z.string()), nested: z.object({ at: z.string() }) });
  const valid = { email: "a@example.com", count: 1, notify: true, tags: [], nested: { at: "x" } };

  it("names the field and the type it takes, in words rather than zod's types", () => {
    expect(messageOf(body, { ...valid, email: 5 })).toBe("email must be text.");
    expect(messageOf(body, { ...valid, count: "1" })).toBe("count must be a number.");
    expect(messageOf(body, { ...valid, notify: "yes" })).toBe("notify must be true or false.");
    expect(messageOf(body, { ...valid, tags: "a" })).toBe("tags must be a list.");
    expect(messageOf(body, { ...valid, nested: { at: 1 } })).toBe("nested.at must be text.");
    expect(messageOf(body, { ...valid, email: undefined })).toBe("email is required.");
  });

  it("says when the whole body is not a JSON object", () => {
    for (const input of [null, [1, 2], "text", 3]) expect(messageOf(body, input)).toBe("Request body must be a JSON object.");
  });

  it("leaves a schema's own words, and other checks' messages, as they are", () => {
    const worded = z.object({
      email: z
        .string({ invalid_type_error: "Please enter a valid email.", required_error: "Please enter a valid email." })
        .email("Please enter a valid email."),
    });
    expect(messageOf(worded, { email: 5 })).toBe("Please enter a valid email.");
    expect(messageOf(worded, {})).toBe("Please enter a valid email.");
    expect(messageOf(worded, { email: "nope" })).toBe("Please enter a valid email.");
    expect(messageOf(z.object({ name: z.string().min(2) }), { name: "a" })).toBe("String must contain at least 2 character(s)");
  });

  it("names the allowed values, the unknown fields, and for either of two shapes the problem of the closer one", () => {
    expect(messageOf(z.object({ preset: z.enum(["none", "weekly"]) }), { preset: "nope" })).toBe("preset must be one of: none, weekly.");
    expect(messageOf(z.object({ a: z.string() }).strict(), { a: "x", foo: 1 })).toBe("Unknown field: foo.");
    expect(messageOf(z.object({ n: z.object({ a: z.string() }).strict() }), { n: { a: "x", b: 1, c: 2 } })).toBe("Unknown fields in n: b, c.");
    const plan = z.union([z.object({ steps: z.array(z.object({ audience: z.string() }).strict()) }).strict(), z.object({ preset: z.string() }).strict()]);
    expect(messageOf(plan, { steps: [{ tier_ids: ["x"] }] })).toMatch(/^steps\.0/);
    expect(messageOf(plan, { steps: [{}] })).toBe("steps.0.audience is required.");
  });
});
