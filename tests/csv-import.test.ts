import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as importRoute from "~/routes/api.admin.import-purchases";
import { importPurchasesCsv } from "~/models/purchase.server";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

const HEADER = "DateTime (UTC),From,Message,Item,Received,Given,Currency,TransactionType,TransactionId,Reference,SalesTax,BuyerEmail";

function upload(content: string, fileName: string, cookie?: string) {
  const form = new FormData();
  form.append("file", new Blob([content], { type: "text/csv" }), fileName);
  return callRoute(importRoute, { method: "POST", path: "/api/admin/import-purchases", form, cookie });
}

async function adminCookie() {
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
  return { admin, cookie: await sessionCookie(admin.id) };
}

describe("POST /api/admin/import-purchases", () => {
  it("imports a real-looking export: BOM, quoted commas and newlines, duplicates and bad rows", async () => {
    await db.post.create({ data: { id: "csv-post-1", title: "Cozy Cabin, Deluxe", kofiId: "cabin01" } });
    await db.post.create({ data: { id: "csv-post-2", title: "Neon Set", kofiId: "neon02" } });
    const { admin, cookie } = await adminCookie();
    const rows = [
      // 1: item by shop address, quoted message with a comma and a newline
      `03/15/2025 14:05,"Doe, Jane","Love it,\nthanks!",https://ko-fi.com/s/cabin01,5.00,5.00,USD,Shop Order,TX-1,,0,Jane@Example.com`,
      // 2: item by title with a comma
      `03/16/2025 09:30,Bob,,"Cozy Cabin, Deluxe",5.00,5.00,USD,Shop Order,TX-2,,0,bob@example.com`,
      // 3: duplicate of row 1 inside the file
      `03/15/2025 14:05,"Doe, Jane",,https://ko-fi.com/s/cabin01,5.00,5.00,USD,Shop Order,TX-1,,0,jane@example.com`,
      // 4: a tip, not a purchase
      `03/17/2025 10:00,Ann,Coffee!,,3.00,3.00,USD,Tip,TX-3,,0,ann@example.com`,
      // 5: bad date
      `13/45/2025 10:00,Ann,,neon02,3.00,3.00,USD,Shop Order,TX-4,,0,ann@example.com`,
      // 6: bad email
      `03/18/2025 10:00,Ann,,neon02,3.00,3.00,USD,Shop Order,TX-5,,0,not-an-email`,
      // 7: unknown item
      `03/18/2025 11:00,Ann,,Mystery Box,3.00,3.00,USD,Shop Order,TX-6,,0,ann@example.com`,
      // 8: item by bare code
      `03/19/2025 23:59,Cy,,neon02,3.00,3.00,USD,Shop Order,TX-7,,0,cy@example.com`,
    ];
    const csv = `\uFEFF${HEADER}\r\n${rows.join("\r\n")}\r\n`;
    const response = await upload(csv, "Transactions.CSV", cookie);
    expect(response.status).toBe(200);
    const report = await readJsonBody<{ imported: number; duplicates: number; rejected: { row: number; reason: string }[] }>(response);
    expect(report.imported).toBe(3);
    expect(report.duplicates).toBe(1);
    expect(report.rejected).toEqual([
      { row: 4, reason: "Not a shop order (Tip)." },
      { row: 5, reason: 'Invalid date "13/45/2025 10:00" (expected MM/DD/YYYY HH:MM:SS or YYYY-MM-DD HH:MM:SS, UTC).' },
      { row: 6, reason: "Invalid buyer email." },
      { row: 7, reason: 'Unknown shop item "Mystery Box".' },
    ]);
    const purchases = await db.purchase.findMany({ orderBy: { transactionId: "asc" } });
    expect(purchases.map((p) => [p.transactionId, p.email, p.kofiItemCode, p.source, p.purchasedAt.toISOString()])).toEqual([
      ["TX-1", "jane@example.com", "cabin01", "CSV", "2025-03-15T14:05:00.000Z"],
      ["TX-2", "bob@example.com", "cabin01", "CSV", "2025-03-16T09:30:00.000Z"],
      ["TX-7", "cy@example.com", "neon02", "CSV", "2025-03-19T23:59:00.000Z"],
    ]);
    const audit = await db.auditEntry.findMany({ where: { action: "purchases.import" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorId).toBe(admin.id);

    // Importing the same file again adds nothing: everything usable is now a duplicate.
    const again = await readJsonBody<{ imported: number; duplicates: number }>(await upload(csv, "Transactions.CSV", cookie));
    expect(again).toMatchObject({ imported: 0, duplicates: 4 });
    expect(await db.purchase.count()).toBe(3);
  });

  it("matches headers by name in any order and tolerates extra columns", async () => {
    const csv = [
      "BuyerEmail,Extra Column,TransactionId,Item,TransactionType,DateTime (UTC)",
      "zed@example.com,whatever,TX-Z,https://ko-fi.com/s/zzz999,Shop Order,01/02/2024 03:04",
    ].join("\n");
    const report = await importPurchasesCsv(null, Buffer.from(csv), "export.csv");
    expect(report).toEqual({ imported: 1, duplicates: 0, rejected: [] });
    const purchase = await db.purchase.findFirstOrThrow({ where: { transactionId: "TX-Z" } });
    expect(purchase.kofiItemCode).toBe("zzz999");
    expect(purchase.purchasedAt.toISOString()).toBe("2024-01-02T03:04:00.000Z");
  });

  it("takes Ko-fi's MM/DD/YYYY and ISO dates (space or T, zone optional), all as UTC", async () => {
    const csv = [
      "DateTime (UTC),TransactionType,TransactionId,BuyerEmail,Item",
      "11/20/2026 10:00:00,Shop Order,TX-D1,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-11-20 10:00:00,Shop Order,TX-D2,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-11-21T11:30,Shop Order,TX-D3,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-11-22 23:59:59Z,Shop Order,TX-D4,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-11-23T12:00:00+02:00,Shop Order,TX-D5,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-11-24,Shop Order,TX-D6,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-02-30 10:00:00,Shop Order,TX-D7,d@example.com,https://ko-fi.com/s/ddd111",
      "2026-11-20 24:00:00,Shop Order,TX-D8,d@example.com,https://ko-fi.com/s/ddd111",
      "20/11/2026,Shop Order,TX-D9,d@example.com,https://ko-fi.com/s/ddd111",
    ].join("\n");
    const report = await importPurchasesCsv(null, Buffer.from(csv), "dates.csv");
    const expected = "(expected MM/DD/YYYY HH:MM:SS or YYYY-MM-DD HH:MM:SS, UTC)";
    expect(report.rejected).toEqual([
      { row: 7, reason: `Invalid date "2026-02-30 10:00:00" ${expected}.` },
      { row: 8, reason: `Invalid date "2026-11-20 24:00:00" ${expected}.` },
      { row: 9, reason: `Invalid date "20/11/2026" ${expected}.` },
    ]);
    expect(report.imported).toBe(6);
    const purchases = await db.purchase.findMany({ where: { transactionId: { startsWith: "TX-D" } }, orderBy: { transactionId: "asc" } });
    expect(purchases.map((purchase) => purchase.purchasedAt.toISOString())).toEqual([
      "2026-11-20T10:00:00.000Z",
      "2026-11-20T10:00:00.000Z",
      "2026-11-21T11:30:00.000Z",
      "2026-11-22T23:59:59.000Z",
      "2026-11-23T10:00:00.000Z",
      "2026-11-24T00:00:00.000Z",
    ]);
  });

  it("changes nothing for a malformed file", async () => {
    const { cookie } = await adminCookie();
    const before = await db.purchase.count();
    const broken = `${HEADER}\n03/15/2025 14:05,Ann,,https://ko-fi.com/s/a1,1,1,USD,Shop Order,TX-B1,,0,a@example.com\n"unterminated,quote`;
    const response = await upload(broken, "broken.csv", cookie);
    expect(response.status).toBe(400);
    const body = await readJsonBody<{ error: string; details: string }>(response);
    expect(body.error).toBe("Error importing purchases.");
    expect(body.details).toMatch(/not valid CSV/);
    const missingColumn = await upload("Date,Email\n01/01/2024 00:00,a@example.com\n", "cols.csv", cookie);
    expect(missingColumn.status).toBe(400);
    expect((await readJsonBody<{ details: string }>(missingColumn)).details).toMatch(/Missing column\(s\): DateTime \(UTC\)/);
    expect(await db.purchase.count()).toBe(before);
  });

  it("asks for a file, takes only .csv, and refuses non-admins on the server", async () => {
    const { cookie } = await adminCookie();
    const empty = await callRoute(importRoute, { method: "POST", form: new FormData(), cookie });
    expect(empty.status).toBe(400);
    expect(await readJsonBody(empty)).toEqual({ error: "Please select a file first." });
    const wrongType = await upload(`${HEADER}\n`, "export.xlsx", cookie);
    expect(wrongType.status).toBe(400);
    expect(await readJsonBody(wrongType)).toEqual({ error: "Error importing purchases.", details: "Only .csv files can be imported." });

    const guest = await upload(`${HEADER}\n`, "a.csv");
    expect(guest.status).toBe(401);
    const user = await createTestUser();
    const nonAdmin = await upload(`${HEADER}\n`, "a.csv", await sessionCookie(user.id));
    expect(nonAdmin.status).toBe(403);
  });
});
