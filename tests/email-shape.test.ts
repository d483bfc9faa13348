// Email fields must answer in linear time: on "a@" + "."x40,000 + "@" a pattern such as
// ^[^\s@]+@[^\s@]+\.[^\s@]+$ backtracks for about a second, on every request.
import { describe, expect, it } from "vitest";
import * as link from "~/routes/api.kofi.link";
import { adminUserUpdateSchema, shopEmailSchema as adminShopEmailSchema } from "~/utils/admin-schemas";
import { emailField } from "~/utils/auth-schemas";
import { hasEmailShape } from "~/utils/email-shape";
import { emailSchema } from "~/utils/shop-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

const HOSTILE = ["a@" + ".".repeat(40_000) + "@", "a@" + "a.".repeat(20_000), "@".repeat(40_000), "a".repeat(40_000) + "@b", " ".repeat(40_000) + "x"];

describe("email shape", () => {
  it("keeps the basic shape rule", () => {
    for (const good of ["a@b.co", "first.last+tag@sub.example.org", "x@y.z"]) expect(hasEmailShape(good)).toBe(true);
    for (const bad of ["", "a", "a@b", "@b.co", "a@.co", "a@b.", "a@@b.co", "a@b@c.co", "a b@c.co", "a@b .co", "a@b.c\n"])
      expect(hasEmailShape(bad)).toBe(false);
  });

  it("every email schema refuses hostile input by its length alone, with the spec's message", () => {
    // The shape check never sees an over-long string: zod reports each check that ran as an issue
    // of its own, so a lone "too_big" shows the length refused it and nothing else ran. (The last
    // input trims to "x", which the shape check refuses.)
    const codes = (parsed: { success: boolean; error?: { issues: { code: string }[] } }) => parsed.error?.issues.map((issue) => issue.code);
    for (const input of HOSTILE) {
      const expected = input.trim().length > 254 ? ["too_big"] : [expect.not.stringMatching(/^too_big$/)];
      for (const schema of [emailSchema, adminShopEmailSchema, emailField]) expect(codes(schema.safeParse(input))).toEqual(expected);
      expect(codes(adminUserUpdateSchema.safeParse({ email: input }))).toEqual(expected);
    }
    const parsed = emailSchema.safeParse(HOSTILE[0]);
    expect(parsed.success ? null : parsed.error.issues.map((issue) => issue.message)).toEqual(["Invalid email format."]);
    const admin = adminShopEmailSchema.safeParse("  ");
    expect(admin.success ? null : admin.error.issues[0]!.message).toBe("Ko-fi email cannot be empty.");
  });

  it("POST /api/kofi/link refuses the hostile address with the spec's message", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const response = await callRoute(link, { method: "POST", json: { email: HOSTILE[0] }, cookie });
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual({ error: "Invalid email format." });
  });
});
