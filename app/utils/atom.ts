// A minimal Atom 1.0 (RFC 4287) writer: the feed and its entries, every text escaped for XML.

export type AtomEntry = { id: string; title: string; updated: Date; link: string; content: string };

export type AtomFeed = { id: string; title: string; selfUrl: string; alternateUrl: string; updated: Date; entries: AtomEntry[] };

/** Escapes text for XML content and attribute values; drops characters XML 1.0 cannot hold. */
export function escapeXml(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[char]!);
}

export function atomXml(feed: AtomFeed): string {
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${escapeXml(feed.id)}</id>`,
    `  <title>${escapeXml(feed.title)}</title>`,
    `  <updated>${feed.updated.toISOString()}</updated>`,
    `  <link rel="self" type="application/atom+xml" href="${escapeXml(feed.selfUrl)}"/>`,
    `  <link rel="alternate" type="text/html" href="${escapeXml(feed.alternateUrl)}"/>`,
    "  <author><name>Creator Library</name></author>",
  ];
  for (const entry of feed.entries) {
    lines.push(
      "  <entry>",
      `    <id>${escapeXml(entry.id)}</id>`,
      `    <title type="text">${escapeXml(entry.title)}</title>`,
      `    <updated>${entry.updated.toISOString()}</updated>`,
      `    <link rel="alternate" type="text/html" href="${escapeXml(entry.link)}"/>`,
      // Notes are the creator's Markdown, given as plain text: a reader shows them, never runs them.
      `    <content type="text">${escapeXml(entry.content)}</content>`,
      "  </entry>",
    );
  }
  lines.push("</feed>", "");
  return lines.join("\n");
}
