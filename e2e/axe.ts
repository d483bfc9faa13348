// axe-core scans for the specs: WCAG 2.x A and AA, in both themes, with one page load.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

// The rules whose outcome depends on colours. The markup is the same in both themes, so after a
// whole scan in the dark theme the light theme needs only these (about half a scan).
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

type Violation = { id: string; help: string; nodes: { target: unknown; failureSummary?: string }[] };

function describeViolations(violations: Violation[]): string {
  return violations
    .map(
      (violation) =>
        `${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  ${JSON.stringify(node.target)} ${node.failureSummary?.replace(/\n/g, " ") ?? ""}`).join("\n")}`,
    )
    .join("\n");
}

/**
 * Sets the theme as the header's switch does: the attribute the stylesheets read, kept for the
 * next page. With reduced motion (app.css then has no transitions, and animations jump to their end: a toast
 * is never scanned mid-fade) the new colours apply at once,
 * also on cards that `content-visibility: auto` skips until a scan reads them.
 */
export async function switchTheme(page: Page, theme: "dark" | "light"): Promise<void> {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.evaluate((value) => {
    document.documentElement.dataset.theme = value;
    localStorage.setItem("theme", value);
  }, theme);
  await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
}

/**
 * Expects no violation on the page as it is now: every rule in the dark theme, then the colour
 * rules in the light theme. The page is left in the light theme.
 */
export async function expectAccessibleInBothThemes(page: Page): Promise<void> {
  for (const theme of ["dark", "light"] as const) {
    await switchTheme(page, theme);
    const scan = new AxeBuilder({ page }).options({ resultTypes: ["violations"] });
    const results = await (theme === "dark" ? scan.withTags(AXE_TAGS) : scan.withRules(COLOUR_RULES)).analyze();
    expect(results.violations, `${theme} theme:\n${describeViolations(results.violations)}`).toEqual([]);
    // The scan really looked at the page (a blank page would pass trivially): text was checked
    // for contrast, and in the whole scan many rules passed.
    expect(results.passes.map((rule) => rule.id)).toContain("color-contrast");
    if (theme === "dark") expect(results.passes.length).toBeGreaterThan(5);
  }
}
