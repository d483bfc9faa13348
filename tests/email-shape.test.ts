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

/**
 * Milliseconds of CPU this process spent (user + system), not wall time: a loaded machine that
 * leaves the test waiting for a core does not count, while a backtracking pattern, which burns
 * CPU, still does (about a second per hostile input with the old pattern).
 */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function timed(run: () => unknown): number {
  const started = process.cpuUsage();
  run();
  return cpuMs(started);
}

describe("email shape", () => {
  it("keeps the basic shape rule", () => {
    for (const good of ["a@b.co", "first.last+tag@sub.example.org", "x@y.z"]) expect(hasEmailShape(good)).toBe(true);
    for (const bad of ["", "a", "a@b", "@b.co", "a@.co", "a@b.", "a@@b.co", "a@b@c.co", "a b@c.co", "a@b .co", "a@b.c\n"])
      expect(hasEmailShape(bad)).toBe(false);
  });

  it("every email schema refuses hostile input quickly with the spec's message", () => {
    for (const input of HOSTILE) {
      expect(timed(() => expect(emailSchema.safeParse(input).success).toBe(false))).toBeLessThan(50);
      expect(timed(() => expect(adminShopEmailSchema.safeParse(input).success).toBe(false))).toBeLessThan(50);
      expect(timed(() => expect(adminUserUpdateSchema.safeParse({ email: input }).success).toBe(false))).toBeLessThan(50);
      expect(timed(() => expect(emailField.safeParse(input).success).toBe(false))).toBeLessThan(50);
    }
    const parsed = emailSchema.safeParse(HOSTILE[0]);
    expect(parsed.success ? null : parsed.error.issues.map((issue) => issue.message)).toEqual(["Invalid email format."]);
    const admin = adminShopEmailSchema.safeParse("  ");
    expect(admin.success ? null : admin.error.issues[0]!.message).toBe("Ko-fi email cannot be empty.");
  });

  it("POST /api/kofi/link answers the hostile address at once", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    const started = process.cpuUsage();
    const response = await callRoute(link, { method: "POST", json: { email: HOSTILE[0] }, cookie });
    expect(cpuMs(started)).toBeLessThan(200);
    expect(response.status).toBe(400);
    expect(await readJsonBody(response)).toEqual({ error: "Invalid email format." });
  });
});
