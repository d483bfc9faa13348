// A page action given a body it cannot read as a form (JSON, text/plain, broken multipart, no
// body at all) answers 415 or 400 with a clear message, never a 500: every page route with an
// action, through Remix's request handler, as a guest, a signed-in user and an admin.
import { describe, expect, it } from "vitest";
import { createTestUser, sessionCookie } from "./helpers";
import { pagesWithActions, requestDocument } from "./documents";

type Role = "guest" | "user" | "admin";

/**
 * Who each page's action serves before it reads the body; everyone else gets the route's own
 * redirect (`refusedTo`). `reads: false`: the action takes nothing from the body. `multipart`:
 * the route parses multipart bodies itself (uploads), and this is its answer to a broken one.
 */
const PAGES: Record<string, { serves: Role[]; refusedTo?: string; reads?: false; multipart?: number }> = {
  // An address with no page: 404 whatever is posted there.
  "$.tsx": { serves: ["guest", "user", "admin"], reads: false },
  // The panel form with its image: Remix's multipart parser finds no fields, so the form is refused.
  "_index.tsx": { serves: ["admin"], refusedTo: "/", multipart: 400 },
  "account.delete.tsx": { serves: ["user", "admin"], refusedTo: "/login" },
  "account.notifications.tsx": { serves: ["user", "admin"], refusedTo: "/login" },
  "account.shop-email.tsx": { serves: ["user", "admin"], refusedTo: "/login" },
  "account.tokens.tsx": { serves: ["user", "admin"], refusedTo: "/login" },
  // The purchase CSV import: no file found.
  "admin.tsx": { serves: ["admin"], refusedTo: "/", multipart: 400 },
  "admin_.catalog.tsx": { serves: ["admin"], refusedTo: "/" },
  "admin_.discord.tsx": { serves: ["admin"], refusedTo: "/" },
  "admin_.patches.tsx": { serves: ["admin"], refusedTo: "/" },
  // A post's editor: its file and image uploads are multipart, read by the upload (a redirect with the refusal).
  "admin_.posts_.$postId.tsx": { serves: ["admin"], refusedTo: "/", multipart: 302 },
  "admin_.reports.tsx": { serves: ["admin"], refusedTo: "/" },
  "auth.callback.tsx": { serves: ["guest", "user", "admin"] },
  "forgot-password.tsx": { serves: ["guest", "user", "admin"] },
  // The idea forms with their image: Remix's multipart parser finds no fields, so no action is named ("Unknown action.").
  "inspiration-vote.tsx": { serves: ["guest", "user", "admin"], multipart: 302 },
  // The streamed uploads: a redirect with the refusal's toast.
  "library.tsx": { serves: ["guest", "user", "admin"], multipart: 302 },
  // The post page's bug-report forms: guests are sent to sign in first.
  "library_.$postId.tsx": { serves: ["user", "admin"], refusedTo: "/login" },
  "login.tsx": { serves: ["guest", "user", "admin"] },
  // The token in the address is all it takes: an unknown one is 404 whatever the body.
  "unsubscribe.$token.tsx": { serves: ["guest", "user", "admin"], reads: false },
};

const BODIES = {
  json: { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ intent: "login", email: "a@example.com" }), status: 415 },
  "text/plain": { headers: { "Content-Type": "text/plain" }, body: "intent=login&email=a@example.com", status: 415 },
  "no content type": { headers: {}, body: undefined, status: 415 },
  "broken multipart": { headers: { "Content-Type": "multipart/form-data; boundary=expected-boundary" }, body: "--another-boundary\r\nnot a part", status: 400 },
} as const;

async function cookieOf(role: Role): Promise<string | undefined> {
  if (role === "guest") return undefined;
  const user = await createTestUser(role === "admin" ? { canBeAdmin: true, isAdmin: true, tosAccepted: true } : {});
  return sessionCookie(user.id);
}

// Top-level await: `it.each` needs the list when the file is collected.
const pages = await pagesWithActions();

describe("page actions and bodies that are not forms", () => {
  it("every page route with an action is listed here", () => {
    expect(pages.map(([file]) => file).sort()).toEqual(Object.keys(PAGES).sort());
  });

  describe.each(["guest", "user", "admin"] as const)("as %s", (role) => {
    it.each(pages)("%s (%s)", async (file, pattern) => {
      const page = PAGES[file]!;
      const path = pattern.replace(/:\w+/g, "A".repeat(43));
      const cookie = await cookieOf(role);
      for (const [kind, { headers, body, status }] of Object.entries(BODIES)) {
        const response = await requestDocument({ method: "POST", path, cookie, headers: { ...headers }, body });
        const text = await response.text();
        const label = `${kind} to ${path} as ${role}`;
        expect(response.status, label).toBeLessThan(500);
        if (!page.serves.includes(role)) {
          expect([response.status, response.headers.get("Location")], label).toEqual([302, page.refusedTo]);
        } else if (page.reads === false) {
          expect(response.status, label).toBe(404);
        } else if (page.multipart && kind === "broken multipart") {
          expect(response.status, label).toBe(page.multipart);
        } else {
          expect(response.status, label).toBe(status);
          expect(text, label).toContain(status === 415 ? "must be sent as a form" : "The form could not be read.");
        }
      }
    });
  });
});
