// Rate limits on the like, username and shop-email endpoints (the accounts endpoints have theirs
// in auth tests): counted in PostgreSQL, answered 429 with a clear message, and a refused
// request changes nothing.
import { vi } from "vitest";

// Per-address limits count only behind our own proxy, which names the client in this header.
vi.hoisted(() => {
  process.env.CLIENT_IP_HEADER = "X-Client-IP";
});

import { db } from "~/db.server";
import * as loginCodeExchange from "~/routes/api.auth.callback";
import * as googleCallback from "~/routes/api.google.callback";
import * as discordUsername from "~/routes/api.discord.set-username-discord";
import * as googleUsername from "~/routes/api.google.set-username-google";
import * as like from "~/routes/api.inspiration.panels.$id.like";
import * as patreonLike from "~/routes/api.inspiration.panels.$id.patreon-like";
import * as inspirationPage from "~/routes/inspiration-vote";
import * as kofiLink from "~/routes/api.kofi.link";
import * as kofiVerify from "~/routes/api.kofi.verify-email";
import * as updateUsername from "~/routes/api.auth.update-username";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";

const TOO_MANY = /^Too many attempts\. Please try again in \d+ (seconds?|minutes?)\.$/;

async function expectRefused(response: Response) {
  expect(response.status).toBe(429);
  const body = await readJsonBody<{ error: string }>(response);
  expect(body.error).toMatch(TOO_MANY);
}

/** The account area's limits also say how long to wait (docs/api.md, rate limits). */
async function expectRefusedWithWait(response: Response) {
  const wait = response.headers.get("Retry-After");
  await expectRefused(response);
  expect(wait).toMatch(/^[1-9]\d*$/);
}

describe("likes", () => {
  beforeAll(async () => {
    await db.tier.create({ data: { id: "rl-tier-2", title: "Tier 2", canVote: true } });
    await db.inspirationConfig.create({ data: { id: 1, votingOpen: true, votingEndTime: new Date(Date.now() + 86_400_000) } });
  });

  for (const [name, route, kind] of [
    ["like", like, "LIKE"],
    ["patreon-like", patreonLike, "PATREON"],
  ] as const) {
    it(`${name}: 120 per minute per account, then 429 and no like stored`, async () => {
      const user = await createTestUser({ currentTierId: "rl-tier-2", patreonId: `rl-patron-${name}` });
      const cookie = await sessionCookie(user.id);
      const panel = await db.inspirationPanel.create({ data: { imageUrl: "/media/x.jpg", title: `Panel ${name}` } });
      const call = (wanted: boolean) =>
        callRoute(route, { method: "POST", path: `/api/inspiration/panels/${panel.id}/${name}`, params: { id: panel.id }, cookie, json: { like: wanted } });
      for (let batch = 0; batch < 12; batch++) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => call(false)));
        for (const answer of answers) expect(answer.status).toBe(200);
      }
      const refused = await call(true);
      // A like's 429 says when to come back, as every 429 does.
      const wait = Number(refused.headers.get("Retry-After"));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      await expectRefused(refused);
      // The page's like button (JavaScript's JSON answer) is refused the same way, by the same model.
      const fromPage = await callRoute(inspirationPage, {
        method: "POST",
        path: "/inspiration-vote",
        cookie,
        form: { intent: name, panelId: panel.id, like: "true", respond: "json" },
      });
      expect(Number(fromPage.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      await expectRefused(fromPage);
      expect(await db.inspirationLike.count({ where: { userId: user.id, kind } })).toBe(0);
      // Another account is not affected.
      const other = await createTestUser({ currentTierId: "rl-tier-2", patreonId: `rl-other-${name}` });
      const answer = await callRoute(route, { method: "POST", params: { id: panel.id }, cookie: await sessionCookie(other.id), json: { like: true } });
      expect(answer.status).toBe(200);
    });
  }
});

describe("usernames", () => {
  for (const [name, route] of [
    ["/api/auth/update-username", updateUsername],
    ["/api/google/set-username-google", googleUsername],
    ["/api/discord/set-username-discord", discordUsername],
  ] as const) {
    it(`${name}: 10 per 15 minutes per account, then 429 and the name stays`, async () => {
      const user = await createTestUser({ googleId: `g-${name}`, mailVerified: false });
      const cookie = await sessionCookie(user.id);
      for (let attempt = 1; attempt <= 10; attempt++) {
        const answer = await callRoute(route, { method: "POST", path: name, cookie, json: { username: `Name ${attempt}` } });
        expect(answer.status).toBe(200);
      }
      await expectRefusedWithWait(await callRoute(route, { method: "POST", path: name, cookie, json: { username: "Eleventh" } }));
      expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).fullName).toBe("Name 10");
    });
  }
});

describe("shop emails", () => {
  it("verify: 10 attempts per 15 minutes per account, then 429 and nothing verified", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    await db.shopEmail.create({ data: { userId: user.id, email: "guess@example.com" } });
    for (let attempt = 0; attempt < 10; attempt++) {
      const answer = await callRoute(kofiVerify, { method: "POST", cookie, json: { email: "guess@example.com", code: String(100000 + attempt) } });
      expect(answer.status).toBe(400);
    }
    await expectRefusedWithWait(await callRoute(kofiVerify, { method: "POST", cookie, json: { email: "guess@example.com", code: "123456" } }));
    expect((await db.shopEmail.findFirstOrThrow({ where: { userId: user.id } })).verifiedAt).toBeNull();
  });

  it("link: 20 per hour per account, then 429 (no probing which addresses are taken)", async () => {
    const user = await createTestUser();
    const cookie = await sessionCookie(user.id);
    await db.shopEmail.create({ data: { userId: user.id, email: "pending@example.com" } });
    for (let attempt = 0; attempt < 20; attempt++) {
      // Another address is pending: each of these is refused with 409, but counted.
      const answer = await callRoute(kofiLink, { method: "POST", cookie, json: { email: `probe${attempt}@example.com` } });
      expect(answer.status).toBe(409);
    }
    await expectRefusedWithWait(await callRoute(kofiLink, { method: "POST", cookie, json: { email: "probe-last@example.com" } }));
    expect(await db.shopEmail.count({ where: { userId: user.id } })).toBe(1);
  });
});

// Code mails are limited per mailbox too, not per account only: many accounts (or one client
// with many accounts) must not flood somebody else's mailbox.
describe("shop-email code mails", () => {
  it("a mailbox gets at most 5 codes an hour, whichever accounts ask", async () => {
    for (let account = 0; account < 5; account++) {
      const user = await createTestUser();
      const answer = await callRoute(kofiLink, {
        method: "POST",
        cookie: await sessionCookie(user.id),
        json: { email: "victim-inbox@example.com" },
        headers: { "X-Client-IP": `198.51.100.${account}` },
      });
      expect(answer.status).toBe(200);
    }
    const sixth = await createTestUser();
    await expectRefusedWithWait(
      await callRoute(kofiLink, {
        method: "POST",
        cookie: await sessionCookie(sixth.id),
        json: { email: "victim-inbox@example.com" },
        headers: { "X-Client-IP": "198.51.100.99" },
      }),
    );
    expect(await db.shopEmail.count({ where: { userId: sixth.id } })).toBe(0);
  });

  it("one client address causes at most 30 code mails an hour, across accounts", async () => {
    const headers = { "X-Client-IP": "198.51.100.200" };
    for (let account = 0; account < 30; account++) {
      const user = await createTestUser();
      const answer = await callRoute(kofiLink, {
        method: "POST",
        cookie: await sessionCookie(user.id),
        json: { email: `spread-${account}@example.com` },
        headers,
      });
      expect(answer.status).toBe(200);
    }
    const next = await createTestUser();
    await expectRefusedWithWait(
      await callRoute(kofiLink, { method: "POST", cookie: await sessionCookie(next.id), json: { email: "spread-last@example.com" }, headers }),
    );
    expect(await db.shopEmail.count({ where: { userId: next.id } })).toBe(0);
  });
});

describe("provider sign-in", () => {
  it("the provider callback: 30 per 15 minutes per client address, then the limit message on /auth/callback", async () => {
    const headers = { "X-Client-IP": "203.0.113.9" };
    for (let attempt = 0; attempt < 30; attempt++) {
      const answer = await callRoute(googleCallback, { path: "/api/google/callback?code=x&state=y", headers });
      expect(new URL(answer.headers.get("Location")!, "http://x").searchParams.get("error")).not.toBe("rate_limited");
    }
    const refused = await callRoute(googleCallback, { path: "/api/google/callback?code=x&state=y", headers });
    expect(refused.status).toBe(302);
    expect(new URL(refused.headers.get("Location")!, "http://x").searchParams.get("error")).toBe("rate_limited");
    // Another address is not affected.
    const other = await callRoute(googleCallback, { path: "/api/google/callback?code=x&state=y", headers: { "X-Client-IP": "203.0.113.10" } });
    expect(new URL(other.headers.get("Location")!, "http://x").searchParams.get("error")).not.toBe("rate_limited");
  });

  it("the login-code exchange: 30 per 15 minutes per client address, then 429", async () => {
    const headers = { "X-Client-IP": "203.0.113.20" };
    for (let attempt = 0; attempt < 30; attempt++) {
      const answer = await callRoute(loginCodeExchange, { method: "POST", json: { code: `guess-${attempt}` }, headers });
      expect(answer.status).toBe(403);
    }
    await expectRefusedWithWait(await callRoute(loginCodeExchange, { method: "POST", json: { code: "guess-last" }, headers }));
  });
});
