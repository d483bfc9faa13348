import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPatreonClient, parseIdentity, parseMember, patreonSignatureValid, type JsonApiDocument } from "~/integrations/patreon.server";
import { currentTierIdOf } from "~/models/patreon-membership.server";
import { pledgedTierAt } from "~/utils/entitlement";
import { signPatreonWebhook } from "./fakes/patreon-api";

// A platform that paginates only with links.next (no cursor in meta), and whose last page
// points somewhere else: the client must not send the token to another host.
let base = "";
const seen: { path: string; auth: string | undefined }[] = [];
const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  seen.push({ path: `${url.pathname}${url.search}`, auth: request.headers.authorization });
  const page = url.searchParams.get("page") ?? "1";
  const body: JsonApiDocument = {
    data: [
      { type: "member", id: `m${page}`, attributes: { patron_status: "active_patron" }, relationships: { user: { data: { type: "user", id: `u${page}` } } } },
    ],
    links: page === "1" ? { next: `${base}/campaigns/c1/members?page=2` } : page === "2" ? { next: "http://evil.example/steal?page=3" } : {},
  };
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(JSON.stringify(body));
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the support-platform API client", () => {
  it("follows links.next on the configured host and refuses to follow it elsewhere", async () => {
    const client = createPatreonClient({ accessToken: "tok", apiUrl: base });
    const pages: string[][] = [];
    await expect(
      (async () => {
        for await (const page of client.memberPages("c1")) pages.push(page.members.map((member) => member.patreonUserId ?? ""));
      })(),
    ).rejects.toThrow(/refusing to follow http:\/\/evil.example/);
    expect(pages).toEqual([["u1"], ["u2"]]);
    expect(seen.every((request) => request.auth === "Bearer tok")).toBe(true);
    expect(seen[0]!.path).toContain("include=currently_entitled_tiers%2Cuser%2Cpledge_history");
  });

  it("parses an identity document with memberships, picking the creator's campaign", () => {
    const document: JsonApiDocument = {
      data: {
        type: "user",
        id: "42",
        attributes: { full_name: "Pat Ron", email: "pat@example.com" },
        relationships: {
          memberships: {
            data: [
              { type: "member", id: "other" },
              { type: "member", id: "mine" },
            ],
          },
        },
      },
      included: [
        {
          type: "member",
          id: "other",
          attributes: { patron_status: "active_patron" },
          relationships: { campaign: { data: { type: "campaign", id: "c-other" } }, currently_entitled_tiers: { data: [{ type: "tier", id: "t-other" }] } },
        },
        {
          type: "member",
          id: "mine",
          attributes: { patron_status: "active_patron", last_charge_status: "Paid" },
          relationships: {
            campaign: { data: { type: "campaign", id: "c1" } },
            currently_entitled_tiers: {
              data: [
                { type: "tier", id: "low" },
                { type: "tier", id: "high" },
              ],
            },
          },
        },
        { type: "tier", id: "low", attributes: { title: "Low", amount_cents: 300 } },
        { type: "tier", id: "high", attributes: { title: "High", amount_cents: 1000 } },
      ],
    };
    const identity = parseIdentity(document, "c1");
    expect(identity).toMatchObject({ patreonUserId: "42", email: "pat@example.com", fullName: "Pat Ron" });
    expect(identity.membership?.entitledTiers.map((tier) => tier.id)).toEqual(["high", "low"]);
    expect(currentTierIdOf(identity.membership!)).toBe("high");
    expect(parseIdentity(document, "c-none").membership).toBeNull();
  });

  it("gives no tier to members who are not active or whose last charge is not Paid", () => {
    const member = parseMember(
      {
        type: "member",
        id: "m",
        attributes: { patron_status: "declined_patron" },
        relationships: { currently_entitled_tiers: { data: [{ type: "tier", id: "t" }] } },
      },
      [],
    );
    expect(currentTierIdOf(member)).toBeNull();
    expect(currentTierIdOf({ ...member, patronStatus: "active_patron", lastChargeStatus: "Declined" })).toBeNull();
    for (const status of ["Pending", "Refunded", "Fraud", "Other"])
      expect(currentTierIdOf({ ...member, patronStatus: "active_patron", lastChargeStatus: status })).toBeNull();
    expect(currentTierIdOf({ ...member, patronStatus: "active_patron", lastChargeStatus: "Paid" })).toBe("t");
    expect(currentTierIdOf({ ...member, patronStatus: "active_patron", lastChargeStatus: null })).toBe("t");
  });

  it("checks webhook signatures over the exact raw bytes", () => {
    const body = '{"data":{"type":"member","id":"1"}}';
    const signature = signPatreonWebhook(body, "secret");
    expect(patreonSignatureValid(Buffer.from(body), signature, "secret")).toBe(true);
    expect(patreonSignatureValid(Buffer.from(body), signature.toUpperCase(), "secret")).toBe(true);
    expect(patreonSignatureValid(Buffer.from(`${body} `), signature, "secret")).toBe(false);
    expect(patreonSignatureValid(Buffer.from(body), signature, "other")).toBe(false);
    expect(patreonSignatureValid(Buffer.from(body), signature, undefined)).toBe(false);
    expect(patreonSignatureValid(Buffer.from(body), null, "secret")).toBe(false);
  });

  it("decides the tier pledged at a moment from the history (only a Paid or empty payment status counts)", () => {
    const history = [
      { type: "pledge_start", date: new Date("2024-01-01"), tierId: "t3", paymentStatus: "Paid" },
      { type: "pledge_downgrade", date: new Date("2024-03-01"), tierId: "t1", paymentStatus: "Paid" },
      { type: "pledge_delete", date: new Date("2024-05-01"), tierId: "t1", paymentStatus: null },
      { type: "pledge_start", date: new Date("2024-07-01"), tierId: "t2", paymentStatus: "Declined" },
      { type: "pledge_start", date: new Date("2024-09-01"), tierId: "t2", paymentStatus: "Pending" },
      { type: "pledge_upgrade", date: new Date("2024-10-01"), tierId: "t3", paymentStatus: "paid" },
    ];
    expect(pledgedTierAt(history, new Date("2023-12-31"))).toBeNull();
    expect(pledgedTierAt(history, new Date("2024-02-01"))).toBe("t3");
    expect(pledgedTierAt(history, new Date("2024-03-01"))).toBe("t1");
    expect(pledgedTierAt(history, new Date("2024-06-01"))).toBeNull();
    expect(pledgedTierAt(history, new Date("2024-08-01"))).toBeNull();
    expect(pledgedTierAt(history, new Date("2024-09-15"))).toBeNull();
    expect(pledgedTierAt(history, new Date("2024-10-01"))).toBe("t3");
  });
});
