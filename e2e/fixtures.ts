// Playwright fixtures: direct database access for arranging data, a logged-in page whose
// session cookie is created directly when login itself is not under test, a page that fails its
// test on any script or console error, and the codes the server mailed.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { test as base, expect, type Locator, type Page } from "@playwright/test";
import { databaseUrl } from "../tests/db";
import { workerSite } from "./site";

/** The server, database and data folder of this worker (e2e/site.ts). */
export const site = workerSite();
process.env.DATABASE_URL = databaseUrl(site.database);
process.env.SESSION_SECRET = "e2e-session-secret-e2e-session-secret-0123";
process.env.APP_URL = site.appUrl;
process.env.NODE_ENV = "test";

const { db } = await import("../app/db.server");
const { createUserSession } = await import("../app/models/session.server");

export { db, expect };

/** Logs the page's browser context in as the user, without going through /login. */
export async function loginAs(page: Page, userId: string) {
  const setCookie = await createUserSession(userId);
  const [pair] = setCookie.split(";");
  const [name, value] = pair!.split("=");
  await page.context().addCookies([{ name: name!, value: value!, url: process.env.APP_URL! }]);
}

/** Accepts the library's 18+ warning before any page script runs. */
export async function acceptAdultWarning(page: Page) {
  await page.addInitScript(() => {
    localStorage.setItem("nsfwAccepted", "true");
    localStorage.setItem("isNsfwAccepted", "true");
  });
}

/** Where this worker's server writes mail. */
const mailDir = path.join(site.dataDir, "mail");

/** The texts of the mails written to `to`, oldest first (file names start with an ISO time). */
async function mailsTo(to: string): Promise<string[]> {
  const files = (await readdir(mailDir).catch(() => [] as string[])).filter((file) => file.endsWith(".txt")).sort();
  const texts = await Promise.all(files.map((file) => readFile(path.join(mailDir, file), "utf8")));
  return texts.filter((text) => text.startsWith(`To: ${to}\n`));
}

export type Mailbox = {
  /**
   * The 6-digit code of the newest mail to `to`, waiting until there are more than `after`
   * mails to that address (pass the count read before an action that mails a new code).
   */
  codeFor(to: string, options?: { after?: number }): Promise<string>;
  /** How many mails were written to `to` so far. */
  count(to: string): Promise<number>;
};

const mailbox: Mailbox = {
  async codeFor(to, { after = 0 } = {}) {
    let code: string | undefined;
    await expect
      .poll(
        async () => {
          const mails = await mailsTo(to);
          code = mails.length > after ? /\b(\d{6})\b/.exec(mails[mails.length - 1]!)?.[1] : undefined;
          return code !== undefined;
        },
        { message: `a code mailed to ${to}`, timeout: 20_000 },
      )
      .toBe(true);
    return code!;
  },
  async count(to) {
    return (await mailsTo(to)).length;
  },
};

type Fixtures = {
  /**
   * Fails the test on any uncaught script error or console error in its pages (hydration
   * mismatches included). On by default; a file that provokes errors on purpose turns it off with
   * `test.use({ failOnPageErrors: false })`. Refused requests log "Failed to load resource",
   * which tests provoke on purpose, and are allowed.
   */
  failOnPageErrors: boolean;
  pageErrors: string[];
  /** The codes the server mailed (written to files: no SMTP server in e2e). */
  mailbox: Mailbox;
};

export const test = base.extend<Fixtures>({
  // Relative paths (page.goto("/library"), request.get("/api/...")) go to this worker's server.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => {
    await use(site.appUrl);
  },
  failOnPageErrors: [true, { option: true }],
  pageErrors: [
    async ({ context, failOnPageErrors }, use) => {
      const errors: string[] = [];
      const watch = (page: Page) => {
        page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
        page.on("console", (message) => {
          if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(`${page.url()}: ${message.text()}`);
        });
      };
      context.pages().forEach(watch);
      context.on("page", watch);
      await use(errors);
      if (failOnPageErrors) expect(errors, "script or console errors in the page").toEqual([]);
    },
    { auto: true },
  ],
  // eslint-disable-next-line no-empty-pattern
  mailbox: async ({}, use) => {
    await use(mailbox);
  },
});

/**
 * The pixel width of the image file the browser chose for an <img> (its `currentSrc`, which with
 * `srcset` may be a resized variant). `naturalWidth` would report the width implied by the
 * srcset descriptor instead.
 */
export async function loadedImageWidth(image: Locator): Promise<number> {
  return image.evaluate(async (element: HTMLImageElement) => {
    if (!element.complete || !element.currentSrc) return 0;
    const bitmap = await createImageBitmap(await (await fetch(element.currentSrc)).blob());
    return bitmap.width;
  });
}
