import { versionNotesAsText } from "./version-notes.server";

describe("versionNotesAsText", () => {
  it("reads the Markdown as text: no asterisks, lists as dashes, links with their address", () => {
    expect(versionNotesAsText("**Walk test** fixed.\n\n- Lighter *textures*\n- [Guide](https://example.com/guide)")).toBe(
      "Walk test fixed.\n\n- Lighter textures\n- Guide (https://example.com/guide)",
    );
  });

  it("keeps raw HTML and entities as the characters typed", () => {
    expect(versionNotesAsText("Use <b>x</b> & y")).toBe("Use <b>x</b> & y");
    expect(versionNotesAsText("   ")).toBe("");
  });
});
