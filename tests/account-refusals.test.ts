// One way of refusing across the account area: the /login form and POST /api/auth/login go
// through the same "login" strategy (same limits, same words), and every limit the account pages
// answer says how long to wait (Retry-After), with or without JavaScript.
import { db } from "~/db.server";
import * as resendApi from "~/routes/api.auth.resend-verification";
import * as loginApi from "~/routes/api.auth.login";
import * as forgotPage from "~/routes/forgot-password";
import * as loginPage from "~/routes/login";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { useMailCapture } from "./mail-capture";

const mail = useMailCapture();

type Body = { error?: string; errors?: Record<string, string> };

/** A call as the HTTP server makes it: the connection's address in the load context. */
const fromAddress = (route: typeof loginPage | typeof loginApi, address: string, options: Parameters<typeof callRoute>[1]) =>
  callRoute(route, { method: "POST", ...options, context: { clientAddress: address } });

const formLogin = (address: string, email: string, password = "Wrong12345") =>
  fromAddress(loginPage, address, { path: "/login", form: { intent: "login", email, password } });
const jsonLogin = (address: string, email: string, password = "Wrong12345") =>
  fromAddress(loginApi, address, { path: "/api/auth/login", json: { email, password } });

describe("password login: one strategy for the form and the JSON API", () => {
  it("refuses a wrong password with the same status and words", async () => {
    const user = await createTestUser({ password: "Right1234" });
    const form = await formLogin("192.0.2.1", user.email!);
    const api = await jsonLogin("192.0.2.1", user.email!);
    expect(form.status).toBe(401);
    expect(api.status).toBe(401);
    expect((await readJsonBody<Body>(form)).errors?.form).toBe("Invalid email or password.");
    expect(await readJsonBody(api)).toEqual({ error: "Invalid email or password." });
  });

  it("counts form and JSON attempts from one address against the same limit (50 per 15 minutes)", async () => {
    const address = "192.0.2.50";
    // Different emails, so only the per-address limit can refuse.
    for (let attempt = 0; attempt < 50; attempt++) {
      const answer = attempt % 2 === 0 ? await formLogin(address, `nobody-${attempt}@example.com`) : await jsonLogin(address, `nobody-${attempt}@example.com`);
      expect(answer.status).toBe(401);
    }
    for (const refused of [await formLogin(address, "next@example.com"), await jsonLogin(address, "next@example.com")]) {
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
    }
    // Another address is not affected.
    expect((await jsonLogin("192.0.2.51", "next@example.com")).status).toBe(401);
  }, 120_000);

  it("keeps the JSON contract: validation in the schema's words, then the user", async () => {
    const invalid = await jsonLogin("192.0.2.2", "not-an-email");
    expect(invalid.status).toBe(400);
    expect(await readJsonBody(invalid)).toEqual({ error: "Please enter a valid email." });
    const user = await createTestUser({ password: "Right1234" });
    const ok = await jsonLogin("192.0.2.2", user.email!, "Right1234");
    expect(ok.status).toBe(200);
    expect(await readJsonBody(ok)).toMatchObject({ message: "Logged in successfully.", user: { _id: user.id, email: user.email } });
    expect(ok.headers.getSetCookie().some((value) => value.startsWith("__session="))).toBe(true);
  });
});

describe("every 429 of the account pages carries Retry-After", () => {
  it("the login form past the per-email limit", async () => {
    const user = await createTestUser({ password: "Right1234" });
    for (let attempt = 0; attempt < 10; attempt++) expect((await formLogin("192.0.2.3", user.email!)).status).toBe(401);
    const refused = await formLogin("192.0.2.3", user.email!, "Right1234");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
    expect((await readJsonBody<Body>(refused)).errors?.form).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
  });

  it("the resend cooldown, in the form and the API: the header says the wait of the words", async () => {
    const user = await createTestUser({ mailVerified: false });
    const cookie = await sessionCookie(user.id);
    const first = await callRoute(resendApi, { method: "POST", path: "/api/auth/resend-verification", json: { email: user.email } });
    expect(first.status).toBe(200);
    await mail().nextCodeFor(user.email!);
    const api = await callRoute(resendApi, { method: "POST", path: "/api/auth/resend-verification", json: { email: user.email } });
    const form = await callRoute(loginPage, { method: "POST", path: "/login", form: { intent: "resend" }, cookie });
    for (const [response, text] of [
      [api, (await readJsonBody<Body>(api)).error],
      [form, (await readJsonBody<Body>(form)).errors?.form],
    ] as const) {
      expect(response.status).toBe(429);
      const seconds = /^Please wait (\d+) seconds before requesting a new code\.$/.exec(text ?? "")?.[1];
      expect(seconds).toBeDefined();
      expect(response.headers.get("Retry-After")).toBe(seconds);
    }
  });

  it("the forgot-password form past its per-email limit", async () => {
    const form = { intent: "request", email: "forgetful@example.com" };
    for (let attempt = 0; attempt < 5; attempt++) expect((await callRoute(forgotPage, { method: "POST", path: "/forgot-password", form })).status).toBe(302);
    const refused = await callRoute(forgotPage, { method: "POST", path: "/forgot-password", form });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
    expect(await db.verification.count({ where: { target: "forgetful@example.com" } })).toBe(0);
  });
});
