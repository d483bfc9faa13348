// The root loader answers on every page: a guest page must carry no Set-Cookie (or no shared
// cache could keep it), while a flash toast is still shown once and then cleared.
import { describe, expect, it } from "vitest";
import { loader } from "~/root";
import { redirectWithSuccess } from "~/toast.server";
import { callRoute, createTestUser, sessionCookie } from "./helpers";

describe("root loader cookies", () => {
  it("sets no cookie for a guest or a signed-in page view without a toast", async () => {
    expect((await callRoute({ loader }, { path: "/" })).headers.get("Set-Cookie")).toBeNull();
    const cookie = await sessionCookie((await createTestUser()).id);
    expect((await callRoute({ loader }, { path: "/library", cookie })).headers.get("Set-Cookie")).toBeNull();
  });

  it("shows a flash toast once and clears its cookie", async () => {
    const redirect = await redirectWithSuccess("/", "Saved.");
    const toastCookie = redirect.headers.get("Set-Cookie")!.split(";")[0]!;
    const response = await callRoute({ loader }, { path: "/", cookie: toastCookie });
    expect(((await response.json()) as { toast: { message: string } }).toast.message).toBe("Saved.");
    expect(response.headers.get("Set-Cookie")).toMatch(/^toast-session=/);
  });
});
