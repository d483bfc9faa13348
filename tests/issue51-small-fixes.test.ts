// Issue 51's smaller creator-side fixes: the CSV import reads a semicolon-separated export, the
// digest lists a post once (under "New posts", not also under "New versions"), and a voting end
// time in the past is refused with a word.
import { describe, expect, it } from "vitest";
import { db } from "~/db.server";
import * as configRoute from "~/routes/api.inspiration.config";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { csvDelimiter, parseKofiCsv } from "~/integrations/kofi.server";
import { digestMail } from "~/models/update-digest.server";
import type { UpdateItem } from "~/models/update-notifications.server";

describe("the CSV import's separator", () => {
  const rows = [
    ["DateTime (UTC)", "TransactionType", "TransactionId", "BuyerEmail", "Item", "Received"],
    ["11/20/2026 10:00:00", "Shop Order", "T-1", "fan@example.com", "Neon Set", "4,50"],
  ];

  it("reads a semicolon-separated file (a comma-decimal spreadsheet) with its commas kept in fields", () => {
    const text = rows.map((row) => row.join(";")).join("\n");
    expect(csvDelimiter(text)).toBe(";");
    expect(parseKofiCsv(text)[0]?.fields).toMatchObject({ Item: "Neon Set", BuyerEmail: "fan@example.com", Received: "4,50" });
  });

  it("still reads commas and tabs", () => {
    const comma = rows.map((row) => row.map((field) => (field.includes(",") ? `"${field}"` : field)).join(",")).join("\n");
    expect(parseKofiCsv(comma)[0]?.fields.TransactionId).toBe("T-1");
    expect(parseKofiCsv(rows.map((row) => row.join("\t")).join("\n"))[0]?.fields.TransactionId).toBe("T-1");
  });
});

describe("the digest", () => {
  const item = (kind: UpdateItem["kind"], subjectId: string, postId: string, title: string, label: string): UpdateItem => ({
    kind,
    subjectId,
    postId,
    title,
    label,
    notes: "",
    at: new Date("2026-11-20T10:00:00Z"),
    owned: true,
    released: false,
    voted: false,
  });

  it("lists a new post once, under New posts, and keeps new versions of other posts", () => {
    const mail = digestMail(
      "fan@example.com",
      null,
      [
        item("NEW_POST", "p1", "p1", "Neon Streetwear Set", "V2.0"),
        item("NEW_VERSION", "v2", "p1", "Neon Streetwear Set", "V2.0"),
        item("NEW_VERSION", "v9", "p9", "Old Garage", "V3.1"),
      ],
      "token",
    );
    expect(mail.text.match(/Neon Streetwear Set/g)).toHaveLength(1);
    expect(mail.text).toContain("New posts for you");
    expect(mail.text).toContain("New versions of posts you own");
    expect(mail.text).toContain("Old Garage V3.1");
    expect(mail.html.match(/Neon Streetwear Set/g)).toHaveLength(1);
  });
});

describe("the voting end time", () => {
  it("refuses an end time in the past with a clear message, and keeps the one set", async () => {
    const admin = await createTestUser({ isAdmin: true, canBeAdmin: true });
    const cookie = await sessionCookie(admin.id);
    const later = new Date(Date.now() + 86_400_000);
    await db.inspirationConfig.upsert({ where: { id: 1 }, create: { id: 1, votingOpen: true, votingEndTime: later }, update: { votingEndTime: later } });
    const past = await callRoute(configRoute, {
      method: "POST",
      path: "/api/inspiration/config",
      json: { votingEndTime: new Date(Date.now() - 60_000).toISOString() },
      cookie,
    });
    expect(past.status).toBe(400);
    expect(await readJsonBody(past)).toEqual({ error: "The voting end time must be in the future." });
    expect((await db.inspirationConfig.findUniqueOrThrow({ where: { id: 1 } })).votingEndTime?.toISOString()).toBe(later.toISOString());
  });
});
