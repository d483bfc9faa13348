// The Infos page content: Markdown files rendered on the server.
import { loader } from "~/routes/infos";

type Section = { anchor: string; title: string; html: string };

describe("infos loader", () => {
  it("renders every section from its Markdown file, with the spec's anchors", async () => {
    const { sections }: { sections: Section[] } = await loader();
    expect(sections.map((section) => section.title)).toEqual([
      "About Me",
      "Permissions & Terms of Service",
      "Privacy Policy",
      "Commissions",
      "Kofi Commissions",
    ]);
    expect(sections.map((section) => section.anchor)).toEqual(["about", "tos", "privacy", "commissions", "kofi-commissions"]);
    for (const section of sections) expect(section.html).toMatch(/^<(p|h3|ul)/);
  });

  it("dates the terms 23 December 2024 and states the 18+ requirement", async () => {
    const { sections }: { sections: Section[] } = await loader();
    const terms = sections.find((section) => section.anchor === "tos")!.html;
    expect(terms).toContain("23 December 2024");
    expect(terms).toContain("aged 18 or older");
  });

  it("describes what is stored and how to ask for export or deletion", async () => {
    const { sections }: { sections: Section[] } = await loader();
    const privacy = sections.find((section) => section.anchor === "privacy")!.html;
    for (const words of ["Shop emails", "Downloads", "trace code", "Patreon", "export", "deleted"]) expect(privacy).toContain(words);
    expect(privacy).not.toContain("<script");
  });
});
