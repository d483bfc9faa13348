// The audit log on /admin (docs/product.md#audit-log): each entry shows only what changed,
// before -> after; the log filters by action, actor and UTC day, and pages 25 at a time.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db.server";
import type { User } from "~/generated/prisma/client";
import * as adminRoute from "~/routes/admin";
import { auditChanges } from "~/utils/audit-log";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

type Page = {
  audit: { rows: { action: string; actor: string; changes: unknown[] }[]; hasOlder: boolean; actions: string[]; actors: { id: string; label: string }[] };
};

let alice: User;
let bob: User;

beforeAll(async () => {
  alice = await createTestUser({ isAdmin: true, canBeAdmin: true, fullName: "Alice Admin" });
  bob = await createTestUser({ isAdmin: true, canBeAdmin: true, fullName: "Bob Admin" });
  const at = (day: string, index: number) => new Date(Date.parse(`${day}T10:00:00Z`) + index * 1000);
  const rows = [
    ...Array.from({ length: 30 }, (_, index) => ({
      actorId: alice.id,
      action: "post.update",
      targetType: "post",
      targetId: `p${index}`,
      createdAt: at("2026-11-20", index),
    })),
    { actorId: bob.id, action: "post.release", targetType: "post", targetId: "p1", createdAt: at("2026-11-22", 0) },
    { actorId: null, action: "purchases.import", targetType: "purchase", targetId: null, createdAt: at("2026-11-23", 0) },
  ];
  await db.auditEntry.createMany({ data: rows.map((row) => ({ ...row, before: { title: "Old", version: "V1" }, after: { title: "New", version: "V1" } })) });
});

async function page(query: string): Promise<Page> {
  return readJsonBody<Page>(await callRoute(adminRoute, { path: `/admin${query}`, cookie: await sessionCookie(alice.id) }));
}

describe("what an entry changed", () => {
  it("lists only the fields whose value differs", () => {
    expect(auditChanges({ title: "Old", version: "V1", tiers: ["a"] }, { title: "New", version: "V1", tiers: ["a"] })).toEqual([
      { field: "title", before: "Old", after: "New" },
    ]);
    expect(auditChanges(null, { title: "New" })).toEqual([{ field: "title", before: undefined, after: "New" }]);
  });

  it("answers the page's rows with their changes", async () => {
    const { audit } = await page("");
    expect(audit.rows[0]).toMatchObject({ action: "purchases.import", actor: "system", changes: [{ field: "title", before: "Old", after: "New" }] });
  });
});

describe("filters and paging", () => {
  it("pages 25 entries at a time, newest first", async () => {
    const first = await page("");
    expect(first.audit.rows).toHaveLength(25);
    expect(first.audit.hasOlder).toBe(true);
    const second = await page("?audit_page=2");
    expect(second.audit.rows.length).toBeGreaterThanOrEqual(7);
    expect(second.audit.hasOlder).toBe(false);
  });

  it("filters by action, by actor (or system) and by day, and lists what there is to pick", async () => {
    const byAction = await page("?audit_action=post.release");
    expect(byAction.audit.rows.map((row) => [row.action, row.actor])).toEqual([["post.release", "Bob Admin"]]);
    expect(byAction.audit.actions).toEqual(expect.arrayContaining(["post.release", "post.update", "purchases.import"]));
    expect(byAction.audit.actors.map((actor) => actor.label)).toEqual(expect.arrayContaining(["Alice Admin", "Bob Admin", "system"]));
    const system = await page("?audit_actor=system");
    expect(system.audit.rows.map((row) => row.action)).toEqual(["purchases.import"]);
    const byBob = await page(`?audit_actor=${bob.id}`);
    expect(byBob.audit.rows.map((row) => row.action)).toEqual(["post.release"]);
    const days = await page("?audit_from=2026-11-21&audit_to=2026-11-22");
    expect(days.audit.rows.map((row) => row.action)).toEqual(["post.release"]);
    const oneDay = await page("?audit_from=2026-11-20&audit_to=2026-11-20&audit_actor=" + alice.id);
    expect(oneDay.audit.rows).toHaveLength(25);
    expect(oneDay.audit.hasOlder).toBe(true);
    // A malformed filter is ignored rather than refused.
    expect((await page("?audit_from=yesterday&audit_page=-3")).audit.rows).toHaveLength(25);
  });
});
