// The password rule is shown under each new-password field from the start, before any error, and
// read with the field (aria-describedby): sign-up on /login and the reset form.
import { describe, expect, it } from "vitest";
import { requestDocument } from "./documents";

async function page(path: string): Promise<string> {
  const response = await requestDocument({ path });
  expect(response.status).toBe(200);
  return response.text();
}

/** The input named `name`, and the text of the element its aria-describedby points at. */
function describedText(html: string, name: string): string | null {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  const id = input ? /aria-describedby="([^"]+)"/.exec(input)?.[1] : undefined;
  if (!id) return null;
  return new RegExp(`<p id="${id.replace(/[:]/g, "\\:")}" class="field-hint">([^<]*)</p>`).exec(html)?.[1] ?? null;
}

describe("the password rule under the field", () => {
  it("is on the sign-up form before anything is typed", async () => {
    const html = await page("/login?tab=signup");
    expect(describedText(html, "password")).toBe("At least 8 characters and 1 uppercase.");
    expect(html).not.toContain('class="field-error"');
  });

  it("is on the reset form with the reset rule", async () => {
    const html = await page("/forgot-password?step=2&email=someone%40example.com");
    expect(describedText(html, "newPassword")).toBe("At least 8 characters, 1 uppercase and 1 special character (!@#$%^&amp;*).");
  });
});
