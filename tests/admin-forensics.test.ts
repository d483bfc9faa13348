// Admin forensics and the insights range form: the user picker of Check access (email, number,
// id, or a search with several matches to choose from), the page that uses it, and a range whose
// dates were edited while a preset was still chosen.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import { pickUser } from "~/models/admin-user-pick.server";
import * as accessCheckRoute from "~/routes/admin_.access-check";
import { parseInsightsRange } from "~/utils/insights-schemas";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

describe("the user picker", () => {
  it("resolves an email (any case), a number, #number and an id; a shared prefix offers the matches; nothing matching is refused", async () => {
    const ann = await createTestUser({ email: "ann.picker@example.com", fullName: "Picker Ann" });
    const andy = await createTestUser({ email: "andy.picker@example.com", fullName: "Picker Andy" });
    for (const typed of ["ANN.picker@example.com", String(ann.number), `#${ann.number}`, ann.id]) {
      expect((await pickUser(typed)).user?.id).toBe(ann.id);
    }
    const both = await pickUser("Picker");
    expect(both.user).toBeNull();
    expect(both.candidates?.map((user) => user.id).sort()).toEqual([ann.id, andy.id].sort());
    expect((await pickUser("andy.pick")).user?.id).toBe(andy.id);
    await expect(pickUser("nobody-at-all@example.com")).rejects.toMatchObject({ status: 404, message: "User not found." });
  });

  it("lets /admin/access-check check a typed user, and says what to choose", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const user = await createTestUser({ email: "checked.picker@example.com" });
    await db.post.create({ data: { id: "p-picker", title: "Picker Lamp", paidContent: false } });
    const load = async (query: string) => {
      const response = await callRoute(accessCheckRoute, { path: `/admin/access-check?${query}`, cookie });
      return { status: response.status, body: await readJsonBody<Record<string, unknown>>(response) };
    };
    const checked = await load("user=checked.picker%40example.com&post=Picker%20Lamp");
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ userId: user.id, userRef: "checked.picker@example.com", check: { user: { id: user.id }, post: { id: "p-picker" } } });
    // From the user editor: the field starts with the account's email, and nothing is refused.
    expect((await load(`userId=${user.id}`)).body).toMatchObject({ error: null, userRef: "checked.picker@example.com" });
    expect((await load("user=&post=Picker%20Lamp")).status).toBe(400);
    expect((await load("user=nobody-here%40example.com&post=Picker%20Lamp")).body).toMatchObject({ error: "User not found." });
  });
});

describe("the insights range form", () => {
  const now = new Date("2025-06-30T12:00:00Z");
  const form = (values: Record<string, string>) => parseInsightsRange(new URLSearchParams(values), now);

  it("takes dates edited under a preset as a custom range, so a wrong pair is explained", () => {
    const shown = { shownRange: "30", shownFrom: "2025-06-01", shownTo: "2025-06-30" };
    expect(form({ range: "30", from: "2022-05-01", to: "2022-04-01", ...shown })).toMatchObject({
      success: false,
      error: "The end date must not be before the start date.",
      field: "to",
      values: { range: "custom" },
    });
    expect(form({ range: "30", from: "2022-04-01", to: "2022-04-30", ...shown })).toMatchObject({
      success: true,
      range: { preset: "custom", from: "2022-04-01", lastDay: "2022-04-30" },
    });
  });

  it("keeps a newly chosen preset whatever dates the form still holds, and links as they are", () => {
    const shown = { shownRange: "custom", shownFrom: "2022-04-01", shownTo: "2022-04-30" };
    expect(form({ range: "7", from: "2022-04-01", to: "2022-04-30", ...shown })).toMatchObject({
      success: true,
      range: { preset: "7", lastDay: "2025-06-30" },
    });
    expect(form({ range: "7", from: "2022-04-05", to: "2022-04-01", shownRange: "30", shownFrom: "2022-04-01", shownTo: "2022-04-30" })).toMatchObject({
      success: true,
      range: { preset: "7" },
    });
    expect(form({ range: "30", from: "2022-05-01", to: "2022-04-01" })).toMatchObject({ success: true, range: { preset: "30" } });
  });
});
