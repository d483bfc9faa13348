// A version's notes, Markdown typed by an admin, as HTML for the cards. Raw HTML in the notes is
// shown as text, links keep only http(s) and mailto addresses and images become plain links, so
// the notes cannot inject markup or scripts into the page.
import { Marked, type Tokens } from "marked";

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function safeHref(href: string): string | null {
  try {
    const url = new URL(href);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.toString() : null;
  } catch {
    return null;
  }
}

const markdown = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    link({ href, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      const target = safeHref(href);
      return target ? `<a href="${escapeHtml(target)}" rel="noreferrer nofollow" target="_blank">${text}</a>` : text;
    },
    image({ href, text }: Tokens.Image) {
      const target = safeHref(href);
      return target ? `<a href="${escapeHtml(target)}" rel="noreferrer nofollow" target="_blank">${escapeHtml(text || target)}</a>` : escapeHtml(text);
    },
  },
});

export function renderVersionNotes(notes: string): string {
  if (!notes.trim()) return "";
  return markdown.parse(notes, { async: false });
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };

/** A version's notes as plain text (a mail's text part): the Markdown read, not shown as typed. */
export function versionNotesAsText(notes: string): string {
  return renderVersionNotes(notes)
    .replace(/<li>/g, "- ")
    .replace(/<a href="([^"]*)"[^>]*>(.*?)<\/a>/g, (_link, href: string, text: string) => (text === href ? text : `${text} (${href})`))
    .replace(/(?:<br\s*\/?>|<\/(?:p|li|h[1-6]|pre|blockquote|ul|ol|tr)>)\n?/g, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&(amp|lt|gt|quot|#39);/g, (_entity, name: string) => ENTITIES[name]!)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
