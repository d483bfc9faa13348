// Accounts in Chromium: sign-up with the code read from the mail the server wrote, verification,
// logout and login; each provider through the fake providers' real redirect flow; callbacks,
// reset, the thank-you overlay and the cookie help.
import type { Page } from "@playwright/test";
import { db, expect, loginAs, test } from "./fixtures";

function unique(prefix: string) {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

async function expectToast(page: Page, text: string) {
  await expect(page.getByTestId("toast").filter({ hasText: text })).toBeVisible();
}

test("sign-up, mail, verify, logout and login with JavaScript", async ({ page, mailbox }) => {
  const email = `${unique("signup")}@example.com`;
  await page.goto("/login");
  await expect(page).toHaveTitle("Login · Creator Library");
  await page.getByRole("link", { name: "Create My Account" }).click();
  await expect(page).toHaveURL(/tab=signup/);
  await expect(page).toHaveTitle("Create My Account · Creator Library");
  const form = page.getByRole("form", { name: "Create an account with email" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password", { exact: true }).fill("Secret123");
  await form.getByLabel("Confirm password").fill("Secret124");
  await form.getByRole("button", { name: "Create My Account" }).click();
  await expect(form.getByText("Passwords do not match. Please try again.")).toBeVisible();
  await form.getByLabel("Confirm password").fill("Secret123");
  await form.getByRole("button", { name: "Create My Account" }).click();
  await expectToast(page, "Account created and logged in successfully.");

  await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
  const resend = page.getByRole("button", { name: "Resend verification code" });
  await expect(resend).toBeDisabled();
  await expect(page.getByTestId("resend-countdown")).toContainText(/Available in \d+ s/);

  const code = await mailbox.codeFor(email);
  await page.getByLabel("Username").fill("Sign Upper");
  await page.getByLabel("Verification code").fill(code === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Verify my mail and set my username" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Invalid verification code." })).toBeVisible();
  await page.getByLabel("Verification code").fill(code);
  await page.getByRole("button", { name: "Verify my mail and set my username" }).click();
  await expectToast(page, "Email verified and username set successfully.");
  await expect(page.getByRole("heading", { name: "Welcome, Sign Upper!" })).toBeVisible();
  // Signed in, /login is the account's settings page, and its title says so.
  await expect(page).toHaveTitle("Account settings · Creator Library");
  await expect(page.getByText(email)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Change Your Password" })).toBeVisible();

  await page.getByRole("button", { name: "Logout" }).click();
  await expectToast(page, "Logged out successfully.");
  await expect(page).toHaveTitle("Login · Creator Library");
  const login = page.getByRole("form", { name: "Login with email" });
  await login.getByLabel("Email").fill(email);
  await login.getByLabel("Password").fill("Wrong1234");
  await login.getByRole("button", { name: "Login" }).click();
  await expect(login.getByText("Invalid email or password.")).toBeVisible();
  await login.getByLabel("Password").fill("Secret123");
  await login.getByRole("button", { name: "Login" }).click();
  await expectToast(page, "Logged in successfully.");
  await expect(page.getByTestId("account-link")).toHaveText("Sign Upper");
});

for (const provider of [
  { name: "Google", column: "googleId" as const },
  { name: "Discord", column: "discordId" as const },
]) {
  test(`sign-in with ${provider.name}: redirect to the provider, back, username, verified`, async ({ page }) => {
    const id = unique(provider.name.toLowerCase());
    await page.goto("/login");
    await page.getByRole("link", { name: `Continue With ${provider.name}` }).click();
    await expect(page.getByRole("heading", { name: `Fake ${provider.name}` })).toBeVisible();
    await page.getByLabel("User id").fill(id);
    await page.getByLabel("Email", { exact: true }).fill(`${id}@example.com`);
    await page.getByLabel("Name").fill("Provider Person");
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL("**/login");
    await expect(page.getByRole("heading", { name: "Welcome", exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Set My Username" }).click();
    await page.getByLabel("Username").fill("   ");
    await page.getByRole("button", { name: "Set My Username" }).click();
    await expect(page.getByText("Please enter a valid username.").first()).toBeVisible();
    await page.getByLabel("Username").fill(`${provider.name}Fan`);
    await page.getByRole("button", { name: "Set My Username" }).click();
    await expectToast(page, "Username set successfully! Your account is now verified.");
    await expect(page.getByRole("heading", { name: `Welcome, ${provider.name}Fan!` })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Set Your Password" })).toBeVisible();
    const user = await db.user.findFirstOrThrow({ where: { [provider.column]: id } });
    expect(user).toMatchObject({ mailVerified: true, fullName: `${provider.name}Fan` });
  });
}

test("sign-in with Patreon links an existing account by verified email and shows the tier", async ({ page }) => {
  const email = `${unique("patron")}@example.com`;
  const existing = await db.user.create({ data: { email, fullName: "Existing Patron", mailVerified: true, emailVerifiedBy: "CODE" } });
  await page.goto("/login");
  await page.getByRole("link", { name: "Continue With Patreon" }).click();
  await page.getByLabel("User id").fill(unique("pat"));
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Name").fill("Pat Reon");
  await page.getByLabel("Entitled tier id").fill("8825009");
  await page.getByRole("button", { name: "Authorize" }).click();
  await page.waitForURL("**/login");
  await expect(page.getByRole("heading", { name: "Welcome, Existing Patron!" })).toBeVisible();
  await expect(page.getByTestId("current-tier")).toHaveText("Tier 2");
  expect(await db.user.count({ where: { email } })).toBe(1);
  expect((await db.user.findUniqueOrThrow({ where: { id: existing.id } })).patreonId).not.toBeNull();
});

test("/auth/callback without the browser's cookie shows the cookie help; no code shows the message", async ({ page }) => {
  await page.goto("/auth/callback?code=abcdefghijklmnopqrstuvwxyz012345");
  await expect(page.getByText(/blocked the sign-in cookie/)).toBeVisible();
  await expect(page.getByRole("dialog", { name: "Allow cookies to sign in" })).toBeVisible();
  await page.getByRole("button", { name: "Close" }).click();
  await page.goto("/auth/callback");
  await expect(page.getByText("No authorization code found. Please try logging in again.")).toBeVisible();
});

test("/login?callback= hands userData only to allowed origins", async ({ page, baseURL }) => {
  await page.goto(`/login?callback=${encodeURIComponent("https://evil.example.com/steal")}`);
  await expect(page.getByText(/This callback address is not allowed/)).toBeVisible();
  await expect(page).toHaveURL(/\/login\?callback=/);

  await page.goto(`/login?callback=${encodeURIComponent(`${baseURL}/healthz`)}`);
  expect(new URL(page.url()).searchParams.get("error")).toBe("Not authenticated");

  const user = await db.user.create({ data: { email: `${unique("cb")}@example.com`, fullName: "Call Back", mailVerified: true } });
  await loginAs(page, user.id);
  await page.goto(`/login?callback=${encodeURIComponent(`${baseURL}/healthz`)}`);
  const userData = JSON.parse(new URL(page.url()).searchParams.get("userData")!) as Record<string, unknown>;
  expect(userData).toMatchObject({ id: user.id, email: user.email, fullName: "Call Back", mailVerified: true, hasPassword: false, kofiEmails: [] });
});

test("forgot and reset password, then log in with the new one", async ({ page, mailbox }) => {
  const email = `${unique("reset")}@example.com`;
  await db.user.create({ data: { email, fullName: "Forgetful", mailVerified: true } });
  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot My Password" }).click();
  await page.getByRole("button", { name: "Send Reset Code" }).click();
  await expect(page.getByText("Please enter your email.").first()).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send Reset Code" }).click();
  await expectToast(page, "If an account exists with that email, a reset code has been sent.");
  const code = await mailbox.codeFor(email);
  await page.getByLabel("Reset code").fill(code);
  await page.getByLabel("New password").fill("NoSpecial1");
  await page.getByRole("button", { name: "Reset Password" }).click();
  await expect(page.getByText("Password must have at least 8 characters, 1 uppercase, and 1 special character.").first()).toBeVisible();
  await page.getByLabel("New password").fill("Brand!New1");
  await page.getByRole("button", { name: "Reset Password" }).click();
  await page.waitForURL("**/login");
  const login = page.getByRole("form", { name: "Login with email" });
  await login.getByLabel("Email").fill(email);
  await login.getByLabel("Password").fill("Brand!New1");
  await login.getByRole("button", { name: "Login" }).click();
  await expectToast(page, "Logged in successfully.");
});

test("admin mode: Enable Admin only for canBeAdmin accounts", async ({ page }) => {
  const plain = await db.user.create({ data: { email: `${unique("plain")}@example.com`, fullName: "Plain", mailVerified: true } });
  await loginAs(page, plain.id);
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Welcome, Plain!" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Enable Admin" })).toHaveCount(0);
  await page.context().clearCookies();

  const boss = await db.user.create({ data: { email: `${unique("boss")}@example.com`, fullName: "Boss", mailVerified: true, canBeAdmin: true } });
  await loginAs(page, boss.id);
  await page.goto("/login");
  await page.getByRole("button", { name: "Enable Admin" }).click();
  await expectToast(page, "Admin status updated.");
  await expect(page.getByRole("link", { name: "To Admin Page" })).toBeVisible();
  await page.getByRole("button", { name: "Disable Admin" }).click();
  await expect(page.getByRole("button", { name: "Enable Admin" })).toBeVisible();
});

test("the #kofibuy thank-you overlay, logged out and logged in", async ({ page }) => {
  await page.goto("/login#kofibuy");
  const overlay = page.getByRole("dialog", { name: "Thank you for your purchase&Support!" });
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText("Create an account to unlock all your purchases.");
  await overlay.getByRole("button", { name: "Close" }).click();
  await expect(overlay).toBeHidden();

  const user = await db.user.create({ data: { email: `${unique("buyer")}@example.com`, fullName: "Buyer", mailVerified: true } });
  await loginAs(page, user.id);
  // A new document (not a same-page hash change), so the logged-in page renders.
  await page.goto("/");
  await page.goto("/login#kofibuy-thanks");
  await expect(overlay).toContainText("Your purchase is confirmed.");
  await expect(overlay.getByRole("link", { name: "Go to Library" })).toBeVisible();
  await expect(overlay.getByRole("link", { name: "Link Account" })).toBeVisible();
});

test("resend: enabled once the cooldown is over, then counts down again from 60", async ({ page, mailbox }) => {
  const email = `${unique("resend")}@example.com`;
  const user = await db.user.create({ data: { email, mailVerified: false, passwordHash: "x" } });
  // A code mailed two minutes ago: the cooldown is over.
  await db.verification.create({
    data: {
      purpose: "EMAIL_VERIFY",
      target: email,
      userId: user.id,
      codeHash: "0",
      expiresAt: new Date(Date.now() + 600_000),
      lastSentAt: new Date(Date.now() - 120_000),
    },
  });
  // The page's clock stands still unless the test moves it: the countdown shows exactly what the
  // server said, however slow a loaded machine is.
  await page.clock.install();
  await loginAs(page, user.id);
  await page.goto("/login");
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
  const resend = page.getByRole("button", { name: "Resend verification code" });
  await expect(resend).toBeEnabled();
  const clicked = Date.now();
  await resend.click();
  await expectToast(page, "Verification code resent to your email.");
  await expect(resend).toBeDisabled();
  const countdown = page.getByTestId("resend-countdown");
  await expect(countdown).toContainText(/Available in \d+ s/);
  // The server's count starts at 60 and loses only the seconds its answer took, however many.
  const start = Number(/Available in (\d+) s/.exec((await countdown.textContent()) ?? "")?.[1]);
  expect(start).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - clicked) / 1000));
  expect(start).toBeLessThanOrEqual(60);
  await page.clock.runFor(10_000);
  await expect(countdown).toContainText(`Available in ${start - 10} s`);
  expect(await mailbox.codeFor(email)).toMatch(/^\d{6}$/);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("sign-up and login forms work as plain POSTs", async ({ page }) => {
    const email = `${unique("nojs")}@example.com`;
    await page.goto("/login?tab=signup");
    const form = page.getByRole("form", { name: "Create an account with email" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Password", { exact: true }).fill("weakpass");
    await form.getByLabel("Confirm password").fill("weakpass");
    await form.getByRole("button", { name: "Create My Account" }).click();
    await expect(page.getByText("Password must have at least 8 characters and 1 uppercase.").first()).toBeVisible();
    // The refused form keeps the email (never the passwords).
    await expect(form.getByLabel("Email")).toHaveValue(email);
    await expect(form.getByLabel("Password", { exact: true })).toHaveValue("");
    await form.getByLabel("Password", { exact: true }).fill("Secret123");
    await form.getByLabel("Confirm password").fill("Other1234");
    await form.getByRole("button", { name: "Create My Account" }).click();
    await expect(page.getByText("Passwords do not match. Please try again.").first()).toBeVisible();
    await expect(form.getByLabel("Email")).toHaveValue(email);
    await form.getByLabel("Password", { exact: true }).fill("Secret123");
    await form.getByLabel("Confirm password").fill("Secret123");
    await form.getByRole("button", { name: "Create My Account" }).click();
    await expect(page.getByText("Account created and logged in successfully.")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
    await page.getByRole("button", { name: "Logout" }).click();
    await expect(page.getByText("Logged out successfully.")).toBeVisible();

    const login = page.getByRole("form", { name: "Login with email" });
    await login.getByLabel("Email").fill(email);
    await login.getByLabel("Password").fill("Wrong1234");
    await login.getByRole("button", { name: "Login" }).click();
    await expect(login.getByRole("alert")).toBeVisible();
    await expect(login.getByLabel("Email")).toHaveValue(email);
    await login.getByLabel("Password").fill("Secret123");
    await login.getByRole("button", { name: "Login" }).click();
    await expect(page.getByText("Logged in successfully.")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
    await expect(page).toHaveTitle("Account settings · Creator Library");
  });

  test("sign-in with Google ends with the Continue button of /auth/callback", async ({ page }) => {
    const id = unique("nojs-google");
    await page.goto("/login");
    await page.getByRole("link", { name: "Continue With Google" }).click();
    await page.getByLabel("User id").fill(id);
    await page.getByLabel("Email", { exact: true }).fill(`${id}@example.com`);
    await page.getByLabel("Name").fill("No Script");
    await page.getByRole("button", { name: "Authorize" }).click();
    await expect(page).toHaveURL(/\/auth\/callback\?code=/);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("Logged in successfully.")).toBeVisible();
    await page.getByLabel("Username").fill("Scriptless");
    await page.getByRole("button", { name: "Set My Username" }).click();
    await expect(page.getByText("Username set successfully! Your account is now verified.")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Welcome, Scriptless!" })).toBeVisible();
  });

  test("the #kofibuy overlay opens by :target", async ({ page }) => {
    await page.goto("/login#kofibuy");
    await expect(page.getByRole("dialog", { name: "Thank you for your purchase&Support!" })).toBeVisible();
  });
});
