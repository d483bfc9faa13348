// Playwright fixtures: direct database access for arranging data, and a logged-in page whose
// session cookie is created directly when login itself is not under test.
import { test as base, expect, type Locator, type Page } from "@playwright/test";
import { databaseUrl } from "../tests/db";

process.env.DATABASE_URL = databaseUrl(process.env.E2E_DATABASE ?? "clib_e2e");
process.env.SESSION_SECRET = "e2e-session-secret-e2e-session-secret-0123";
process.env.APP_URL = `http://127.0.0.1:${process.env.E2E_PORT ?? "3100"}`;
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

export const test = base;

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
