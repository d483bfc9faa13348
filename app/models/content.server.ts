// Page content kept as Markdown files in content/ (editable without code changes), rendered to
// HTML on the server. The files are trusted site content; user input never goes through here.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Marked } from "marked";
import { createCache } from "~/cache.server";
import { env } from "~/env.server";

/** The privacy page's sentence on kept downloads (docs/product.md#keep-what-you-downloaded). */
function keptDownloadsRule(): string {
  return env().KEEP_DOWNLOADED_VERSIONS
    ? "If your membership ends, you keep the exact versions you downloaded through it: their download records are the proof, for as long as they are kept. Newer versions need a membership again."
    : "When a membership ends, what it unlocked is locked again, including versions you downloaded through it.";
}

export const CONTENT_PAGES = ["about", "tos", "privacy", "commissions", "kofi-commissions"] as const;
export type ContentPage = (typeof CONTENT_PAGES)[number];

const markdown = new Marked({ gfm: true, async: false });
/** Rendered pages, one version per process: the files are read again after a restart. */
const renderedPages = createCache<string>(CONTENT_PAGES.length);

function contentDir(): string {
  return path.resolve(process.cwd(), "content");
}

async function renderFile(page: ContentPage): Promise<string> {
  // The few configured figures a page states (the privacy page's retention) come from settings.
  const source = (await readFile(path.join(contentDir(), `${page}.md`), "utf8"))
    .replaceAll("{downloadRetentionDays}", String(env().DOWNLOAD_RETENTION_DAYS))
    .replaceAll("{keptDownloads}", keptDownloadsRule());
  // Raw HTML in the files is shown as text, so the Markdown stays the only markup.
  return markdown.parse(source.replace(/</g, "&lt;"), { async: false });
}

/** The HTML of one content page; cached in production (restart after editing), fresh in development. */
export async function renderContent(page: ContentPage): Promise<string> {
  if (env().NODE_ENV !== "production") return renderFile(page);
  return renderedPages.get(page, "process", async () => ({ value: await renderFile(page) }));
}
