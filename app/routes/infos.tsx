import type { LinksFunction, MetaFunction } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";
import { useEffect } from "react";
import { renderContent } from "~/models/content.server";
import infosStyles from "~/styles/infos.css?url";
import type { CacheableHandle } from "~/document-cache.server";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: infosStyles }];

/**
 * Guests all see the same page: a CDN may keep it briefly (app/document-cache.server.ts). A
 * reader's is answered before Remix too: the sections are read once per process.
 */
export const handle: CacheableHandle = { guestCacheable: true, keptForReaders: true };

export const meta: MetaFunction = () => [
  { title: "Infos · Creator Library" },
  { name: "description", content: "About me, terms of service, privacy policy and commissions." },
];

/** The accordion's sections; anchors are part of the spec (tos, privacy, commissions). */
const SECTIONS = [
  { page: "about", anchor: "about", title: "About Me" },
  { page: "tos", anchor: "tos", title: "Permissions & Terms of Service" },
  { page: "privacy", anchor: "privacy", title: "Privacy Policy" },
  { page: "commissions", anchor: "commissions", title: "Commissions" },
  { page: "kofi-commissions", anchor: "kofi-commissions", title: "Kofi Commissions" },
] as const;

export async function loader() {
  const sections = await Promise.all(SECTIONS.map(async (section) => ({ ...section, html: await renderContent(section.page) })));
  // Plain data (single fetch): no status or headers to set.
  return { sections };
}

/**
 * Opens the section named by the address's #hash: on load, on hashchange, and on in-app
 * navigation to another hash (which does not fire hashchange).
 */
function useOpenFromHash() {
  const { hash } = useLocation();
  useEffect(() => {
    function openFromHash() {
      const anchor = decodeURIComponent(window.location.hash.slice(1));
      if (!anchor) return;
      const section = document.getElementById(anchor);
      if (section instanceof HTMLDetailsElement) {
        section.open = true;
        section.scrollIntoView({ block: "start" });
        section.querySelector("summary")?.focus({ preventScroll: true });
      }
    }
    openFromHash();
    window.addEventListener("hashchange", openFromHash);
    return () => window.removeEventListener("hashchange", openFromHash);
  }, [hash]);
}

export default function Infos() {
  const { sections } = useLoaderData<typeof loader>();
  useOpenFromHash();
  return (
    <>
      <h1 className="page-title">Infos</h1>
      <div className="accordion">
        {sections.map((section, position) => (
          <details key={section.anchor} id={section.anchor} className="accordion-item" open={position === 0 ? true : undefined}>
            <summary>{section.title}</summary>
            {/* Rendered on the server from the trusted Markdown files in content/. */}
            <div className="accordion-body prose" dangerouslySetInnerHTML={{ __html: section.html }} />
          </details>
        ))}
      </div>
    </>
  );
}
