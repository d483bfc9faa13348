// Each admin operation has one model function that the /admin page action (with or
// without JavaScript, both post there) and its /api/admin route call. Here both paths run the
// same operation against the same database and must answer alike and write alike.
import pg from "pg";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";

// The fake platform must be up before any module reads the (cached) configuration.
const fake = await vi.hoisted(async () => {
  const { startFakePatreonApi } = await import("./fakes/patreon-api");
  const api = await startFakePatreonApi({ pageSize: 10, tiers: [{ id: "8825009", title: "Tier 2", amountCents: 500 }] });
  process.env.PATREON_API_URL = api.apiUrl;
  process.env.PATREON_CREATOR_ACCESS_TOKEN = "creator-token";
  return api;
});

import { db } from "~/db.server";
import * as adminRoute from "~/routes/admin";
import * as forceIntervalApi from "~/routes/api.admin.force-interval";
import * as importApi from "~/routes/api.admin.import-purchases";
import { MAX_CSV_BYTES } from "~/utils/body-limits";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

afterAll(() => fake.stop());

type Json = Record<string, unknown>;
let admin: { id: string; cookie: string };

beforeEach(async () => {
  globalThis.__allowConsoleError = false;
  fake.failPage(null);
  if (!admin) {
    const user = await createTestUser({ isAdmin: true, canBeAdmin: true });
    admin = { id: user.id, cookie: await sessionCookie(user.id) };
  }
});

const viaPage = (form: Record<string, string> | FormData) => callRoute(adminRoute, { method: "POST", path: "/admin", form, cookie: admin.cookie });
const forceViaPage = () => viaPage({ intent: "force-interval" });
const forceViaApi = () => callRoute(forceIntervalApi, { method: "POST", path: "/api/admin/force-interval", cookie: admin.cookie });

/** Runs `call` and answers its response with the audit entries it added. */
async function withNewAuditEntries(call: () => Promise<Response>) {
  const since = new Date();
  const response = await call();
  const entries = await db.auditEntry.findMany({ where: { createdAt: { gte: since } } });
  return { response, body: await readJsonBody<Json>(response), entries };
}

describe("force interval: one model function behind the page action and the API", () => {
  it("succeeds on both paths, each run audited exactly once with its own job run", async () => {
    for (const call of [forceViaPage, forceViaApi]) {
      const { response, body, entries } = await withNewAuditEntries(call);
      expect(response.status).toBe(200);
      expect(body).toMatchObject({ message: "Interval job completed.", summary: { status: "succeeded", pages: 1 } });
      const summary = body.summary as Json;
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ action: "interval.force", actorId: admin.id, targetType: "job", targetId: summary.jobRunId });
      expect(entries[0]!.after).toEqual(summary);
    }
  });

  it("answers a failed sync with 502, the same error and details on both paths, and audits each once", async () => {
    globalThis.__allowConsoleError = true;
    fake.failPage(0, 500);
    const page = await withNewAuditEntries(forceViaPage);
    const api = await withNewAuditEntries(forceViaApi);
    for (const { response, body, entries } of [page, api]) {
      expect(response.status).toBe(502);
      expect(body).toMatchObject({ error: "Error forcing interval.", summary: { status: "failed" } });
      expect(body.details).toMatch(/answered 500/);
      expect(body.details).toEqual((body.summary as Json).error);
      expect(entries.map((entry) => entry.action)).toEqual(["interval.force"]);
    }
    expect(page.body).toEqual({
      intent: "force-interval",
      ...api.body,
      summary: { ...(api.body.summary as Json), jobRunId: (page.body.summary as Json).jobRunId },
    });
  });

  it("answers 409 on both paths while another server holds the job's lock, still auditing the attempt", async () => {
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(7351002001)");
      for (const call of [forceViaPage, forceViaApi]) {
        const { response, body, entries } = await withNewAuditEntries(call);
        expect(response.status).toBe(409);
        expect(body).toMatchObject({
          error: "Error forcing interval.",
          details: "The interval job is already running.",
          summary: { status: "skipped", jobRunId: null },
        });
        expect(entries).toHaveLength(1);
      }
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
  });
});

describe("CSV import: the same checks on the page action and the API", () => {
  const upload = (name: string, content: string, type = "text/csv") => {
    const form = new FormData();
    form.set("file", new File([content], name, { type }));
    return form;
  };
  const importViaApi = (form: FormData) => callRoute(importApi, { method: "POST", path: "/api/admin/import-purchases", form, cookie: admin.cookie });

  it("refuses a file above the limit with 413 and the same message on both paths, storing nothing", async () => {
    const oversize = "A".repeat(MAX_CSV_BYTES + 1);
    const page = await viaPage(upload("big.csv", oversize));
    const api = await importViaApi(upload("big.csv", oversize));
    expect(page.status).toBe(413);
    expect(api.status).toBe(413);
    expect(await readJsonBody(page)).toEqual({ intent: "import-purchases", error: "The file is too large." });
    expect(await readJsonBody(api)).toEqual({ error: "The file is too large." });
    expect(await db.auditEntry.count({ where: { action: "purchases.import" } })).toBe(0);
  });

  it("refuses a file that is not .csv on both paths (each in its documented words) and a malformed one alike", async () => {
    const page = await viaPage(upload("notes.txt", "hello", "text/plain"));
    const api = await importViaApi(upload("notes.txt", "hello", "text/plain"));
    expect([page.status, api.status]).toEqual([400, 400]);
    expect(await readJsonBody(page)).toEqual({ intent: "import-purchases", error: "Please select a .csv file." });
    expect(await readJsonBody(api)).toEqual({ error: "Error importing purchases.", details: "Only .csv files can be imported." });

    const malformedPage = await viaPage(upload("export.csv", "Name,Amount\nx,1\n"));
    const malformedApi = await importViaApi(upload("export.csv", "Name,Amount\nx,1\n"));
    const details = "Missing column(s): DateTime (UTC), TransactionType, TransactionId, BuyerEmail, Item.";
    expect(await readJsonBody(malformedPage)).toEqual({ intent: "import-purchases", error: "Error importing purchases.", details });
    expect(await readJsonBody(malformedApi)).toEqual({ error: "Error importing purchases.", details });
    expect(await db.auditEntry.count({ where: { action: "purchases.import" } })).toBe(0);
  });

  it("imports through either path with one audit entry per import", async () => {
    const csv = "DateTime (UTC),TransactionType,TransactionId,BuyerEmail,Item\n05/01/2024 10:00,Donation,TX-1,a@example.com,\n";
    const page = await withNewAuditEntries(() => viaPage(upload("a.csv", csv)));
    const api = await withNewAuditEntries(() => importViaApi(upload("a.csv", csv)));
    const report = { imported: 0, duplicates: 0, rejected: [{ row: 1, reason: "Not a shop order (Donation)." }] };
    expect(page.body).toEqual({ intent: "import-purchases", report });
    expect(api.body).toEqual(report);
    for (const { entries } of [page, api]) expect(entries.map((entry) => entry.action)).toEqual(["purchases.import"]);
  });
});

describe("admin editor refusals keep their status on both paths", () => {
  it("a self-lockout is a 400 with the same message from the page action and the API", async () => {
    const page = await viaPage({ intent: "save-user", userId: admin.id, isAdmin: "true", restricted: "true" });
    expect(page.status).toBe(400);
    expect(await readJsonBody(page)).toEqual({ intent: "save-user", error: "You cannot restrict yourself or remove your own admin rights here." });
    const usersApi = await import("~/routes/api.admin.users.$id");
    const api = await callRoute(usersApi, {
      method: "PUT",
      path: `/api/admin/users/${admin.id}`,
      params: { id: admin.id },
      json: { restricted: true },
      cookie: admin.cookie,
    });
    expect(api.status).toBe(400);
    expect(await readJsonBody(api)).toEqual({ error: "You cannot restrict yourself or remove your own admin rights here." });
  });

  it("the editor's shop-email draft saves through the page action as form fields", async () => {
    const target = await createTestUser();
    const form = new URLSearchParams();
    form.set("intent", "save-user");
    form.set("userId", target.id);
    form.append("kofiEmail", "draft-one@buyer.example");
    form.append("kofiEmail", "draft-two@buyer.example");
    form.append("kofiEmailVerified", "draft-two@buyer.example");
    const response = await callRoute(adminRoute, {
      method: "POST",
      path: "/admin",
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      cookie: admin.cookie,
    });
    expect(response.status).toBe(302);
    const emails = await db.shopEmail.findMany({ where: { userId: target.id }, orderBy: { email: "asc" } });
    expect(emails.map((row) => [row.email, row.verifiedEmail])).toEqual([
      ["draft-one@buyer.example", null],
      ["draft-two@buyer.example", "draft-two@buyer.example"],
    ]);
  });
});
