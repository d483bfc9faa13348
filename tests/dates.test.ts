// One date format everywhere (docs/design.md#dates-and-times): every date is written by
// app/utils/dates.ts, in the viewer's locale (Accept-Language) and time zone (the `timeZone`
// cookie the browser sets), and a guest, a mail and a job get the site's locale and the creator's
// zone. The page and its hydration agree because the root's data carries what the server used.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { db } from "~/db.server";
import { hashToken } from "~/models/session.server";
import { dateSettingsFor } from "~/utils/dates.server";
import { requestDocument } from "./documents";
import { createTestUser, sessionCookie } from "./helpers";

const root = path.resolve(__dirname, "..");

/** Every source file under `dir`, tests left out. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|tsx)$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.startsWith("generated"))
    .map((file) => path.posix.join(dir, file.split(path.sep).join("/")));
}

/** The same spaces whatever the ICU build puts before "PM" or between the parts. */
const plain = (html: string) => html.replace(/<!-- -->/g, "").replace(/[\u202f\u00a0]/g, " ");

describe("one date format", () => {
  it("no component, page, model or mail formats a date on its own", () => {
    // time-zone.ts reads a zone's wall clock with formatToParts (arithmetic, nothing shown).
    const allowed = new Set(["app/utils/dates.ts", "app/utils/time-zone.ts"]);
    const own = /\bIntl\.DateTimeFormat\b|\bIntl\.RelativeTimeFormat\b|\.toLocaleDateString\(|\.toLocaleTimeString\(|\bdateStyle\b|\btimeStyle\b/;
    const offenders = [...sourceFiles("app"), ...sourceFiles("server")].filter(
      (file) => !allowed.has(file) && own.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  it("a page writes its dates in one format, in the viewer's locale and time zone, and hands both to the browser", async () => {
    const user = await createTestUser();
    const session = await sessionCookie(user.id);
    // 23:30 UTC on 25 November: already the 26th in Berlin, still the 25th in New York.
    await db.apiToken.create({
      data: {
        userId: user.id,
        tokenHash: hashToken(`dates-${user.id}`),
        label: "Dated token",
        createdAt: new Date("2026-11-25T23:30:00Z"),
        expiresAt: new Date("2099-02-23T23:30:00Z"),
        lastUsedAt: new Date("2026-11-25T23:45:00Z"),
      },
    });
    const page = async (cookie: string, headers: Record<string, string> = {}) => {
      const response = await requestDocument({ path: "/account/tokens", cookie, headers });
      expect(response.status).toBe(200);
      return plain(await response.text());
    };

    // No language and no zone told: the site's locale and the creator's zone (UTC here).
    const site = await page(session);
    expect(site).toContain("made 25 Nov 2026 · works until 23 Feb 2099 · last used 25 Nov 2026, 23:45");

    const american = await page(`${session}; timeZone=America%2FNew_York`, { "Accept-Language": "en-US,en;q=0.8" });
    expect(american).toContain("made Nov 25, 2026 · works until Feb 23, 2099 · last used Nov 25, 2026, 06:45 PM");
    // The browser formats with what the server used, so hydration writes the same words.
    expect(american).toContain(String.raw`\"locale\",\"en-US\"`);
    expect(american).toContain("America/New_York");

    const berlin = await page(`${session}; timeZone=Europe%2FBerlin`, { "Accept-Language": "fr;q=0.2, en-GB;q=0.9, xx-invalid-!!" });
    expect(berlin).toContain("made 26 Nov 2026 · works until 24 Feb 2099 · last used 26 Nov 2026, 00:45");

    // A zone the runtime does not know is ignored, not trusted.
    expect(await page(`${session}; timeZone=Mars%2FOlympus`)).toContain("made 25 Nov 2026");
  });

  it("a guest gets the site's locale and the creator's zone whatever they send, so a shared guest page is the same for everyone", () => {
    const sent = { acceptLanguage: "en-US", authorization: null };
    expect(dateSettingsFor({ ...sent, cookie: "timeZone=America%2FNew_York; nsfwAccepted=dHJ1ZQ%3D%3D" })).toEqual({ locale: "en-GB", timeZone: "UTC" });
    expect(dateSettingsFor({ ...sent, cookie: "__session=s; timeZone=America%2FNew_York" })).toEqual({ locale: "en-US", timeZone: "America/New_York" });
    expect(dateSettingsFor({ ...sent, cookie: null, authorization: "Bearer t" })).toEqual({ locale: "en-US", timeZone: "UTC" });
  });
});
